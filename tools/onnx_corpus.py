#!/usr/bin/python3
"""The ONNX corpus: real models exported by torch.onnx.export, with a seeded input and the
framework's own output, for ntpbench's ONNX reader to be checked against (issue: ONNX models as
users have them).

Each model is written as the ONNX model zoo lays out its test data, which libonnx reads with no
extra code:

  OUT/<model>_op<opset>/model.onnx
  OUT/<model>_op<opset>/test_data_set_0/input_0.pb    (onnx.TensorProto; input_1.pb: the
                                                        lengths of a packed-sequence model)
  OUT/<model>_op<opset>/test_data_set_0/output_0.pb    (output_1.pb ...: further outputs)
  OUT/<model>_dyn_op<opset>/...                        exported with dynamic axes (DYNAMIC),
                                                        test_data_set_1 at other sizes
  OUT/corpus.json   one entry per model: name, opset, exporter, kind, params (PyTorch's count),
                    params_folded_by_exporter (batchnorm scale and shift merged into a conv),
                    input_sensitivity (how much the output moves with the input), input
                    shape, bytes, dynamic_axes (dim name -> axis), data_sets (each one's
                    values of the dynamic dims, by their ONNX names)

Weights are seeded: PyTorch's initialisation, then Kaiming for convolutions and batchnorm
statistics away from the identity, so that the signal reaches the output (no download: nothing
outside Debian is reached).
Models run in eval mode, so batchnorm uses its running statistics and dropout is off.

  /usr/bin/python3 tools/onnx_corpus.py OUT [--set small|all] [--only NAME,...]

`--set small` writes the models small enough to commit (tests/onnx/corpus/, well under 1 MiB
each); `--set all` adds torchvision's classifiers and the larger models, generated at test time.
Needs Debian's python3-torch, python3-torchvision and python3-onnx (setup.sh --with-torch).
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def progress(msg):
    print(f"onnx_corpus: {msg}", file=sys.stderr, flush=True)


# ---- models written here (small, committed) -------------------------------------------------


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(64, 48), nn.Linear(48, 10)

    def forward(self, x):
        return torch.softmax(self.fc2(torch.relu(self.fc1(x))), dim=-1)


class GruState(nn.Module):
    """The usual recurrent signature: the sequence and the final hidden state (Y and Y_h)."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(20, 24, num_layers=2, bidirectional=True)

    def forward(self, x):
        y, h = self.rnn(x)
        return y, h


class LstmState(nn.Module):
    """`y, (h, c) = lstm(x)` returned whole: the sequence and both final states (Y, Y_h, Y_c of
    each layer, concatenated by the export)."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(20, 24, num_layers=2, bidirectional=True)

    def forward(self, x):
        y, (h, c) = self.rnn(x)
        return y, h, c


class LstmPacked(nn.Module):
    """Sequences of different lengths as PyTorch runs them: `pack_padded_sequence(x, lengths)`
    (sorted longest first, its default), the LSTM, `pad_packed_sequence` back; the exporter
    passes the lengths to the LSTM's sequence_lens."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(20, 24, bidirectional=True)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths)
        y, (h, _) = self.rnn(packed)
        y, _ = nn.utils.rnn.pad_packed_sequence(y, total_length=x.shape[0])
        return y, h


class Recurrent(nn.Module):
    """nn.LSTM / nn.GRU as a speech model uses it: features in, per-step scores out."""

    def __init__(self, cell, layers, bidirectional, batch_first, features=20, hidden=24):
        super().__init__()
        kind = nn.LSTM if cell == "lstm" else nn.GRU
        self.rnn = kind(features, hidden, num_layers=layers, bidirectional=bidirectional,
                        batch_first=batch_first)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.head(y)


class RecurrentFromState(nn.Module):
    """An encoder's summary as the recurrent layers' initial state (a decoder conditioned on it):
    `rnn(x, (h0, c0))` with states computed from the input, [layers x dirs, N, H] as PyTorch
    takes them; the export hands each layer its slice as initial_h and initial_c."""

    def __init__(self, cell, layers=2, bidirectional=True, features=20, hidden=24):
        super().__init__()
        self.lstm = cell == "lstm"
        kind = nn.LSTM if self.lstm else nn.GRU
        self.copies = layers * (2 if bidirectional else 1)
        self.rnn = kind(features, hidden, num_layers=layers, bidirectional=bidirectional)
        self.init_h = nn.Linear(features, hidden)
        if self.lstm:
            self.init_c = nn.Linear(features, hidden)
        self.head = nn.Linear(hidden * (2 if bidirectional else 1), 12)

    def forward(self, x):  # x [T, N, C]
        summary = x.mean(0)
        h0 = torch.tanh(self.init_h(summary)).unsqueeze(0).repeat(self.copies, 1, 1)
        if self.lstm:
            c0 = self.init_c(summary).unsqueeze(0).repeat(self.copies, 1, 1)
            y, _ = self.rnn(x, (h0, c0))
        else:
            y, _ = self.rnn(x, h0)
        return self.head(y)


class DeepSpeechLike(nn.Module):
    """DeepSpeech's shape (Hannun et al.): three clipped-ReLU dense layers, a bidirectional LSTM,
    a dense layer and per-step character probabilities."""

    def __init__(self, features=26 * 19, hidden=32, characters=29):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = (nn.Linear(features, hidden), nn.Linear(hidden, hidden),
                                        nn.Linear(hidden, hidden))
        self.lstm = nn.LSTM(hidden, hidden, bidirectional=True, batch_first=True)
        self.fc5, self.out = nn.Linear(2 * hidden, hidden), nn.Linear(hidden, characters)

    def forward(self, x):
        x = F.hardtanh(self.fc1(x), 0, 20)
        x = F.hardtanh(self.fc2(x), 0, 20)
        x = F.hardtanh(self.fc3(x), 0, 20)
        x, _ = self.lstm(x)
        x = F.hardtanh(self.fc5(x), 0, 20)
        return torch.softmax(self.out(x), dim=-1)


class TinyUNet(nn.Module):
    """A two-level U-Net: strided convolutions down, ConvTranspose and bilinear Resize up."""

    def __init__(self, c=8, classes=3):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU())
        self.enc2 = nn.Sequential(nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), nn.ReLU())
        self.bottom = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(2 * c, 2 * c, 3, padding=1),
                                    nn.ReLU())
        self.up1 = nn.ConvTranspose2d(2 * c, 2 * c, 2, stride=2)
        self.dec1 = nn.Sequential(nn.Conv2d(4 * c, c, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(2 * c, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        b = self.up1(self.bottom(e2))
        d1 = self.dec1(torch.cat([b, e2], dim=1))
        d1 = F.interpolate(d1, scale_factor=2, mode="bilinear", align_corners=False)
        return self.head(torch.cat([d1, e1], dim=1))


class EncoderBlock(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, dropout=0.0,
                                                activation="gelu", batch_first=True)

    def forward(self, x):
        return self.layer(x)


class DecoderBlock(nn.Module):
    """nn.TransformerDecoderLayer with the causal mask a decoder is run with (torch.triu:
    exported as Trilu, opset 14 and later) and a memory computed from the input."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.layer = nn.TransformerDecoderLayer(d, heads, dim_feedforward=2 * d, dropout=0.0,
                                                batch_first=True)
        self.memory = nn.Linear(d, d)

    def forward(self, x):
        t = x.size(1)
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        return self.layer(x, self.memory(x), tgt_mask=causal)


class TinyBert(nn.Module):
    """Token and position embeddings, a padding mask, two encoder layers, a pooled classifier."""

    def __init__(self, vocab=100, d=32, heads=4, layers=2, seq=16):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.norm = nn.LayerNorm(d)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=2 * d, dropout=0.0,
                                           activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.classify = nn.Linear(d, 2)
        self.register_buffer("position_ids", torch.arange(seq).unsqueeze(0))

    def forward(self, ids):
        # The positions of the sequence as given (a shorter one with a dynamic axis).
        positions = self.position_ids[:, :ids.shape[1]]
        x = self.norm(self.tokens(ids) + self.positions(positions))
        mask = ids == 0  # padding tokens are not attended to
        x = self.encoder(x, src_key_padding_mask=mask)
        return self.classify(torch.tanh(x[:, 0]))


class Gpt2Block(nn.Module):
    """A GPT-2 block as its reference code writes it (plain PyTorch, no nn.MultiheadAttention):
    pre-LayerNorm, one qkv projection split into heads, a causal mask from a lower-triangular
    buffer cut to the sequence, softmax, GELU in its tanh form."""

    def __init__(self, d, heads, positions):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc, self.out = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.register_buffer("causal", torch.tril(torch.ones(positions, positions))
                             .view(1, 1, positions, positions))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // self.heads))
        att = att.masked_fill(self.causal[:, :, :t, :t] == 0, float("-inf"))
        y = (torch.softmax(att, dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, c)
        x = x + self.proj(y)
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        return x + self.out(h)


class Gpt2(nn.Module):
    """GPT-2's shape: token and learned position embeddings, blocks, a final LayerNorm and the
    language-model head tied to the token embedding (as GPT-2 ties it)."""

    def __init__(self, vocab=100, d=32, heads=4, layers=2, positions=32):
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, d), nn.Embedding(positions, d)
        self.blocks = nn.ModuleList(Gpt2Block(d, heads, positions) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)
        self.head.weight = self.tokens.weight

    def forward(self, ids):
        x = self.tokens(ids) + self.positions(torch.arange(ids.size(1)))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


class BertLayer(nn.Module):
    """A BERT layer as its reference code writes it: separate q, k, v projections, the attention
    mask added as (1 - mask) * -10000, post-LayerNorm, GELU (erf form)."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.o, self.ln1 = nn.Linear(d, d), nn.LayerNorm(d, eps=1e-12)
        self.fc, self.out, self.ln2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d), nn.LayerNorm(d, eps=1e-12)

    def forward(self, x, bias):
        b, t, c = x.shape
        def heads(z):
            return z.view(b, t, self.heads, c // self.heads).permute(0, 2, 1, 3)
        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(c // self.heads) + bias
        y = (torch.softmax(scores, dim=-1) @ v).permute(0, 2, 1, 3).reshape(b, t, c)
        x = self.ln1(x + self.o(y))
        return self.ln2(x + self.out(F.gelu(self.fc(x))))


class Bert(nn.Module):
    """BERT's shape: word, position and token-type embeddings, the padding mask as an additive
    bias, layers, the pooled [CLS] classifier."""

    def __init__(self, vocab=100, d=32, heads=4, layers=2, positions=32):
        super().__init__()
        self.words, self.positions = nn.Embedding(vocab, d), nn.Embedding(positions, d)
        self.types = nn.Embedding(2, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer(d, heads) for _ in range(layers))
        self.pool, self.classify = nn.Linear(d, d), nn.Linear(d, 2)

    def forward(self, ids):
        t = ids.size(1)
        x = self.words(ids) + self.positions(torch.arange(t)) + self.types(torch.zeros_like(ids))
        x = self.ln(x)
        bias = (1.0 - (ids != 0).float()[:, None, None, :]) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return self.classify(torch.tanh(self.pool(x[:, 0])))


def torchvision_model(name):
    import torchvision.models as tv
    return getattr(tv, name)(weights=None) if name != "googlenet" else tv.googlenet(
        weights=None, aux_logits=False, init_weights=True)


# name, builder, input (shape or ("tokens", shape)), opsets, kind, set
IMAGE = (1, 3, 224, 224)
MODELS = [
    ("mlp", Mlp, (1, 64), [9, 13], "mlp", "small"),
    ("lstm", lambda: Recurrent("lstm", 1, False, False), (10, 1, 20), [9, 13], "rnn", "small"),
    ("lstm_bi2_batch_first", lambda: Recurrent("lstm", 2, True, True), (2, 10, 20), [13, 17],
     "rnn", "small"),
    ("gru", lambda: Recurrent("gru", 1, False, True), (1, 10, 20), [11, 13], "rnn", "small"),
    ("gru_bi2", lambda: Recurrent("gru", 2, True, False), (10, 2, 20), [13], "rnn", "small"),
    ("gru_state", GruState, (10, 2, 20), [13, 17], "rnn", "small"),
    ("lstm_from_state", lambda: RecurrentFromState("lstm"), (10, 2, 20), [13, 17], "rnn", "small"),
    ("lstm_state", LstmState, (10, 2, 20), [13, 17], "rnn", "small"),
    ("lstm_packed", LstmPacked, ("lengths", (10, 3, 20)), [13, 17], "rnn", "small"),
    ("gru_from_state", lambda: RecurrentFromState("gru"), (10, 2, 20), [13], "rnn", "small"),
    ("deepspeech_like", DeepSpeechLike, (1, 16, 26 * 19), [13], "rnn", "small"),
    ("tiny_unet", TinyUNet, (1, 3, 32, 32), [11, 13], "segmentation", "small"),
    ("encoder_block", EncoderBlock, (2, 16, 32), [13, 17], "transformer", "small"),
    ("decoder_block", DecoderBlock, (2, 16, 32), [14, 17], "transformer", "small"),
    ("tiny_bert", TinyBert, ("tokens", (2, 16), 100), [13, 17], "transformer", "small"),
    ("gpt2_tiny", Gpt2, ("tokens", (2, 16), 100), [13, 17], "transformer", "small"),
    ("bert_tiny", Bert, ("tokens", (2, 16), 100), [13], "transformer", "small"),
    ("gpt2_small", lambda: Gpt2(50257, 768, 12, 12, 1024), ("tokens", (1, 32), 50257), [13],
     "transformer", "all"),
    ("bert_base", lambda: Bert(30522, 768, 12, 12, 512), ("tokens", (1, 32), 30522), [13],
     "transformer", "all"),
    ("resnet18", lambda: torchvision_model("resnet18"), IMAGE, [9, 11, 13, 17], "cnn", "all"),
    ("resnet50", lambda: torchvision_model("resnet50"), IMAGE, [13], "cnn", "all"),
    ("mobilenet_v2", lambda: torchvision_model("mobilenet_v2"), IMAGE, [11, 13], "cnn", "all"),
    ("mobilenet_v3_small", lambda: torchvision_model("mobilenet_v3_small"), IMAGE, [13, 14],
     "cnn", "all"),
    ("squeezenet1_1", lambda: torchvision_model("squeezenet1_1"), IMAGE, [9, 13], "cnn", "all"),
    ("shufflenet_v2_x0_5", lambda: torchvision_model("shufflenet_v2_x0_5"), IMAGE, [13], "cnn",
     "all"),
    ("efficientnet_b0", lambda: torchvision_model("efficientnet_b0"), IMAGE, [13], "cnn", "all"),
    ("mnasnet0_5", lambda: torchvision_model("mnasnet0_5"), IMAGE, [13], "cnn", "all"),
    ("regnet_x_400mf", lambda: torchvision_model("regnet_x_400mf"), IMAGE, [13], "cnn", "all"),
    ("densenet121", lambda: torchvision_model("densenet121"), IMAGE, [13], "cnn", "all"),
    ("googlenet", lambda: torchvision_model("googlenet"), IMAGE, [13], "cnn", "all"),
    ("alexnet", lambda: torchvision_model("alexnet"), IMAGE, [13], "cnn", "all"),
    ("vgg11", lambda: torchvision_model("vgg11"), IMAGE, [13], "cnn", "all"),
]


# Dynamic axes, as the torch.onnx.export tutorial exports them: model -> (the input's symbolic
# dims, a second input of other sizes). The `<name>_dyn` models are exported with these and
# checked at both sizes (test_data_set_0 at the model's own input, test_data_set_1 at the other).
DYNAMIC = {
    "mlp": ({0: "batch"}, (3, 64)),
    "lstm": ({0: "T", 1: "batch"}, (7, 3, 20)),
    "lstm_bi2_batch_first": ({0: "batch", 1: "seq"}, (3, 7, 20)),
    "gru": ({0: "batch", 1: "seq_len"}, (3, 7, 20)),
    "gru_bi2": ({0: "T", 1: "batch"}, (7, 3, 20)),
    "gru_state": ({0: "T", 1: "batch"}, (7, 3, 20)),
    "lstm_from_state": ({0: "T", 1: "batch"}, (7, 3, 20)),
    "lstm_state": ({0: "T", 1: "batch"}, (7, 3, 20)),
    # At the exported batch only: PyTorch 1.13 traces pack_padded_sequence's batch into the
    # initial states' constant ([2, 3, 24] expanded to [2, batch, 24] fails at another batch).
    "lstm_packed": ({0: "T", 1: "batch"}, ("lengths", (7, 3, 20))),
    "gru_from_state": ({0: "T", 1: "batch"}, (7, 3, 20)),
    "deepspeech_like": ({0: "batch", 1: "time"}, (3, 9, 26 * 19)),
    "tiny_unet": ({0: "batch"}, (3, 3, 32, 32)),
    "encoder_block": ({0: "batch", 1: "seq"}, (3, 9, 32)),
    "tiny_bert": ({0: "batch", 1: "sequence"}, ("tokens", (3, 9), 100)),
    "decoder_block": ({0: "batch", 1: "seq"}, (3, 9, 32)),
    "gpt2_tiny": ({0: "batch", 1: "seq"}, ("tokens", (3, 9), 100)),
    "bert_tiny": ({0: "batch", 1: "seq"}, ("tokens", (3, 9), 100)),
    "gpt2_small": ({0: "batch", 1: "seq"}, ("tokens", (2, 20), 50257)),
    "bert_base": ({0: "batch", 1: "seq"}, ("tokens", (2, 20), 30522)),
}


def make_input(spec, generator):
    if spec[0] == "tokens":
        _, shape, vocab = spec
        ids = torch.randint(1, vocab, shape, generator=generator)
        ids[:, -3:] = 0  # some padding, so the mask matters
        return ids
    if spec[0] == "lengths":  # [T, N, C] sequences and their lengths, longest first, from T
        _, shape = spec
        lengths = torch.randint(1, shape[0] + 1, (shape[1],), generator=generator)
        lengths[0] = shape[0]
        return torch.randn(shape, generator=generator), lengths.sort(descending=True).values
    return torch.randn(spec, generator=generator)


def inputs_of(x):
    """The model's inputs: the data, then any lengths."""
    return list(x) if isinstance(x, tuple) else [x]


def make_signal_flow(model):
    """Weights a trained network could have. PyTorch's default initialisation of some classifiers
    (GoogLeNet's truncated normal of std 0.01, ShuffleNet's) lets the signal die before the
    classifier, whose output is then its bias alone: a comparison would check nothing. Kaiming
    initialisation keeps it alive, and batchnorm gets running statistics and affine weights away
    from the identity, so that folding them (the exporter's or ours) is exercised."""
    g = torch.Generator().manual_seed(2)
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            fan_in = m.weight[0].numel()
            with torch.no_grad():
                m.weight.normal_(0, math.sqrt(2.0 / fan_in), generator=g)
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
                m.weight.copy_(torch.rand(c, generator=g) + 0.5)
                m.bias.copy_(torch.randn(c, generator=g) * 0.1)


def input_sensitivity(model, x, y, spec):
    """How much the output moves (norm-wise, relative) when the input changes: a model whose
    output ignores its input cannot show that an implementation computes it right."""
    other = make_input(spec, torch.Generator().manual_seed(3))
    with torch.no_grad():
        y2 = outputs_of(model(*inputs_of(other)))[0]
    return float((y2 - y).norm() / max(float(y.norm()), 1e-30))


def params_folded_by_exporter(model, onnx_model):
    """Parameters the exporter's constant folding removed: a batchnorm merged into the
    convolution in front loses its scale and shift (2 C), and gives that convolution a bias (C)
    if it had none. They are in no ONNX tensor any more, so no reader can count them."""
    kept = {n.name for n in onnx_model.graph.node if n.op_type == "BatchNormalization"}
    folded, last_conv = 0, None
    for name, m in model.named_modules():
        if isinstance(m, nn.Conv2d):
            last_conv = m
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            node = "/" + name.replace(".", "/") + "/BatchNormalization"
            if node not in kept:
                added_bias = last_conv is not None and last_conv.bias is None
                folded += m.num_features if added_bias else 2 * m.num_features
    return folded


def outputs_of(y):
    return list(y) if isinstance(y, tuple) else [y]


def write_data_set(folder, index, x, y):
    from onnx import numpy_helper
    data = os.path.join(folder, f"test_data_set_{index}")
    os.makedirs(data, exist_ok=True)
    tensors = [(f"input_{i}", t) for i, t in enumerate(inputs_of(x))] + \
        [(f"output_{i}", t) for i, t in enumerate(outputs_of(y))]
    for kind_name, tensor in tensors:
        with open(os.path.join(data, kind_name + ".pb"), "wb") as f:
            f.write(numpy_helper.from_array(tensor.numpy(), kind_name).SerializeToString())


def params_exporter_changed(model, onnx_model):
    """What makes the file's parameter count differ from PyTorch's in ways a reader cannot undo:
    an embedding table the exporter folded away (a lookup of constant position ids becomes the
    rows looked up) and a tied weight written twice (GPT-2's head, transposed beside the token
    table). The reader's count lies between PyTorch's less the tables and PyTorch's plus the
    tied copies."""
    names = {t.name for t in onnx_model.graph.initializer}
    tables = sum(m.weight.numel() for n, m in model.named_modules()
                 if isinstance(m, nn.Embedding) and f"{n}.weight" not in names)
    every = sum(p.numel() for m in model.modules() for p in m._parameters.values()
                if p is not None)  # a parameter two modules share, counted for each
    return tables, every - sum(p.numel() for p in model.parameters())


def export(name, builder, spec, opset, kind, out_dir, dynamic=None):
    import onnx
    torch.manual_seed(0)
    model = builder().eval()
    make_signal_flow(model)
    x = make_input(spec, torch.Generator().manual_seed(1))
    with torch.no_grad():
        y = model(*inputs_of(x))
    sensitivity = input_sensitivity(model, x, outputs_of(y)[0], spec)
    # Ten times the tests' tolerance (1e-4): an output computed from the wrong input would fail.
    if sensitivity < 1e-3:
        raise SystemExit(f"{name}: the output hardly depends on the input ({sensitivity:.1e})")
    stem = f"{name}_dyn_op{opset}" if dynamic else f"{name}_op{opset}"
    folder = os.path.join(out_dir, stem)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "model.onnx")
    output_names = [f"output_{i}" if i else "output" for i in range(len(outputs_of(y)))]
    input_names = ["input", "lengths"][:len(inputs_of(x))]
    dynamic_axes = {"input": dynamic[0]} if dynamic else None
    if dynamic and len(input_names) > 1:  # the lengths: one per batch item
        dynamic_axes["lengths"] = {0: dynamic[0][1]}
    torch.onnx.export(model, tuple(inputs_of(x)), path, opset_version=opset,
                      input_names=input_names, output_names=output_names,
                      do_constant_folding=True, dynamic_axes=dynamic_axes)
    onnx_model = onnx.load(path)
    onnx.checker.check_model(onnx_model)
    write_data_set(folder, 0, x, y)
    data_sets = [{"bind": {dim: inputs_of(x)[0].shape[axis] for axis, dim in dynamic[0].items()}}] \
        if dynamic else [{"bind": {}}]
    if dynamic:
        other = make_input(dynamic[1], torch.Generator().manual_seed(4))
        with torch.no_grad():
            write_data_set(folder, 1, other, model(*inputs_of(other)))
        data_sets.append(
            {"bind": {dim: inputs_of(other)[0].shape[axis] for axis, dim in dynamic[0].items()}})
    return {
        "name": name,
        "folder": stem,
        "dynamic_axes": {dim: axis for axis, dim in dynamic[0].items()} if dynamic else {},
        "data_sets": data_sets,
        "opset": opset,
        "exporter": f"torch.onnx.export (torch {torch.__version__})",
        "kind": kind,
        "params": sum(p.numel() for p in model.parameters()),
        "params_folded_by_exporter": params_folded_by_exporter(model, onnx_model),
        "tables_folded_by_exporter": params_exporter_changed(model, onnx_model)[0],
        "params_tied": params_exporter_changed(model, onnx_model)[1],
        "input_sensitivity": round(sensitivity, 4),
        "input_shape": list(inputs_of(x)[0].shape),
        "bytes": os.path.getsize(path),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--set", choices=["small", "all"], default="small")
    parser.add_argument("--only", default="", help="comma-separated model names")
    args = parser.parse_args()
    torch.set_num_threads(2)
    only = set(filter(None, args.only.split(",")))
    todo = []
    for m in MODELS:
        if (args.set != "all" and m[5] != "small") or (only and m[0] not in only):
            continue
        todo += [(m, opset, None) for opset in m[3]]
        dynamic = DYNAMIC.get(m[0]) or (({0: "batch"}, (2,) + IMAGE[1:]) if m[2] == IMAGE else None)
        if dynamic:  # at the newest opset the model is exported with
            todo.append((m, max(m[3]), dynamic))
    os.makedirs(args.out, exist_ok=True)
    entries = []
    for i, ((name, builder, spec, _, kind, _), opset, dynamic) in enumerate(todo):
        progress(f"{i + 1}/{len(todo)} {name}{' dynamic' if dynamic else ''} opset {opset}")
        entries.append(export(name, builder, spec, opset, kind, args.out, dynamic))
    manifest = os.path.join(args.out, "corpus.json")
    with open(manifest + ".tmp", "w") as f:
        json.dump({"schema": "ntpbench.onnx_corpus", "version": 1, "models": entries}, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(manifest + ".tmp", manifest)
    progress(f"{len(entries)} models in {args.out}")


if __name__ == "__main__":
    main()
