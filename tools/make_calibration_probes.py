#!/usr/bin/env python3
"""Writes the latency calibration's probe sweeps (calibration/*.json), the probe topology of
standalone CNN layers (calibration/probes/cnn_layers.json) and the held-out models that
`ntpbench predict --check` runs (calibration/heldout/). Run from the repository root.

The probes are a designed sample of each op family's parameter space, stratified so that every
combination of the factors that pick a kernel (convolution kind, kernel size, batch) gets points
spread over the factors that size it (channels, image size), within a bound on each run's work
so that a calibration takes minutes on a 2-core machine. The held-out models are different
networks: the shipped CNNs, transformers and MLP at other sizes, and random CNNs and MLPs drawn
here with a fixed seed (none of them is a probe).
"""
import json
import os
import random

SWEEP_HEADER = {"format": "ntpbench-sweep", "version": 1}
MIN_TIME = 0.1
REPETITIONS = 3


def write(path, doc):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


def sweep(name, description, topology, base, factors, points):
    names = list(factors)
    return dict(SWEEP_HEADER, name=name, description=description, topology=topology,
                base=base, mode="points",
                factors=[{"name": n, "values": sorted({p[n] for p in points})} for n in names],
                points=points, min_time=MIN_TIME, repetitions=REPETITIONS)


def spread(rng, combos, sizes, per_combo, fits):
    """For each combo, `per_combo` (size...) tuples cycling through every value of each size
    factor in a shuffled order (a Latin-hypercube-like design), keeping those that `fits`."""
    points = []
    for combo in combos:
        columns = []
        for values in sizes.values():
            column = [values[i % len(values)] for i in range(per_combo)]
            rng.shuffle(column)
            columns.append(column)
        for row in zip(*columns):
            point = dict(combo)
            point.update(dict(zip(sizes, row)))
            if fits(point) and point not in points:
                points.append(point)
    return points


def cnn_probe(rng):
    combos = [{"kernel": k, "conv_type": t, "batch": b}
              for k in (1, 3, 5, 7) for t in (0, 1, 2) for b in (1, 8)]
    sizes = {"size": [32, 64, 96, 128, 160, 224], "width": [16, 32, 64, 128]}
    # backbone's work grows with size^2 * width^2 * batch: the largest points would take seconds
    # an iteration.
    def fits(p):
        return p["size"] * p["size"] * p["width"] * p["width"] * p["batch"] <= 224 * 224 * 64 * 64 * 2
    points = spread(rng, combos, sizes, 7, fits)
    # And each combination's largest image at the widest width that fits: a network's first
    # layers at 224x224 and batch 8 hold tens of MB of activations each, beyond the L3, and ran
    # at half the byte rate of any smaller sample (MobileNet v2 at batch 8 was predicted 22-26%
    # fast from them).
    for combo in combos:
        widest = max(w for w in sizes["width"] if fits(dict(combo, size=224, width=w)))
        corner = dict(combo, size=224, width=widest)
        if corner not in points:
            points.append(corner)
    return sweep("probe_cnn", "Convolutions in context (topologies/backbone.json): standard, "
                 "depthwise-separable and grouped, kernels 1-7, strides 1 and 2, 16 to 1024 "
                 "channels, images 1x1 to 224x224, with their batchnorm, activations and residual "
                 "adds (fused or not, as the backend does), pooling and the classifier.",
                 "../topologies/backbone.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "size": 128, "width": 64,
                  "kernel": 3, "conv_type": 0, "groups": 4, "n_classes": 1000},
                 ["kernel", "conv_type", "batch", "size", "width"], points)


def dense_probe(rng):
    combos = [{"batch": b} for b in (1, 8, 32)]
    sizes = {"n_input": [64, 256, 784, 1024, 2048, 4096],
             "n_hidden": [64, 128, 256, 512, 1024, 2048, 4096],
             "n_classes": [10, 100, 1000]}
    points = spread(rng, combos, sizes, 24, lambda p: True)
    # And networks of 1-11 MB (f32; half that in bf16) whose largest layer is 0.4-4.7 MB: whether
    # a network's weights stay in the L2s between inferences decides its layers' speed there (a
    # random MLP of 3.2 MB read its 2 MiB bf16 layer at 122 GB/s from the two 2 MiB L2s of an
    # Intel Xeon guest, where the samples of networks of 4.3-6.5 MB ran at 58-81 GB/s), and the
    # spread design had few such networks at batch 1 with a layer over 1 MB.
    for batch in (1, 8):
        for n_input, n_hidden, n_classes in ((384, 640, 10), (1024, 512, 100), (128, 1024, 100),
                                             (512, 1024, 10), (2048, 768, 10), (256, 1536, 10)):
            point = {"batch": batch, "n_input": n_input, "n_hidden": n_hidden,
                     "n_classes": n_classes}
            if point not in points:
                points.append(point)
    return sweep("probe_dense", "Dense layers (topologies/mlp.json): 64 to 4096 inputs and "
                 "units, batch 1 to 32, with and without a fused ReLU, and a softmax; networks "
                 "that fit the L2s of a few cores and networks that do not.",
                 "../topologies/mlp.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "n_input": 784,
                  "n_hidden": 1024, "n_classes": 10},
                 ["batch", "n_input", "n_hidden", "n_classes"], points)


def transformer_probe():
    points = []
    for hidden in (128, 256, 512, 768):
        for seq in (16, 32, 64, 128, 256):
            for batch in (1, 8):
                points.append({"batch": batch, "hidden": hidden, "heads": hidden // 64,
                               "ffn": 4 * hidden, "seq": seq})
    return sweep("probe_transformer", "One encoder block (topologies/bert.json, 1 layer, a "
                 "1000-token vocabulary): embeddings, layernorm, the q/k/v/o and feed-forward "
                 "dense layers (GELU fused), attention and residual adds; hidden 128 to 768, "
                 "sequences 16 to 256, batch 1 and 8.",
                 "../topologies/bert.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "layers": 1,
                  "vocab": 1000, "hidden": 768, "heads": 12, "ffn": 3072, "seq": 128},
                 ["batch", "hidden", "heads", "ffn", "seq"], points)


def layers_topology():
    return {
        "format": "ntpbench-topology", "version": 1, "name": "cnn_layers",
        "description": "Latency calibration probe: the standalone layers of CNNs, after a 1x1 "
                       "convolution that two of them read (so no backend fuses them): batchnorm, "
                       "activations, elementwise products and sums, pooling, concatenation, "
                       "global pooling, a classifier and softmax; and a vision transformer's embedding (reshape, "
                       "transpose, constants, expand, concat). Written by "
                       "tools/make_calibration_probes.py.",
        "params": {"C": 64, "S": 56},
        "inputs": [{"name": "x", "shape": ["N", "C", "S", "S"]}],
        "layers": [
            # A convolution first, whose output two layers read (so nothing fuses into it): the
            # layers after it see the layout a backend gives convolution outputs, as in a CNN
            # (oneDNN's blocked layouts; a plain-layout max_pool ran 5-10x slower).
            {"name": "conv", "op": "conv2d", "filters": "C", "kernel": 1, "bias": False},
            {"name": "bn", "op": "batchnorm"},
            {"name": "relu", "op": "relu"},
            {"name": "gate", "op": "sigmoid"},
            {"name": "scale", "op": "mul", "inputs": ["relu", "gate"]},
            {"name": "sum", "op": "add", "inputs": ["scale", "conv"]},
            {"name": "relu6", "op": "clipped_relu", "clip": 6},
            {"name": "maxpool", "op": "max_pool", "kernel": 3, "stride": 2, "padding": 1},
            {"name": "avgpool", "op": "avg_pool", "kernel": 3, "stride": 1, "padding": 1},
            {"name": "maxpool2", "op": "max_pool", "inputs": ["relu6"], "kernel": 2},
            {"name": "cat", "op": "concat", "inputs": ["maxpool2", "avgpool"], "axis": 1},
            {"name": "gap", "op": "global_avg_pool"},
            {"name": "fc", "op": "dense", "units": "C"},
            {"name": "probs", "op": "softmax"},
            # A vision transformer's embedding (topologies/vit.json): the feature map as tokens,
            # a class token and positions.
            {"name": "flat", "op": "reshape", "inputs": ["relu6"], "shape": ["N", "C", "S * S"]},
            {"name": "tokens", "op": "transpose", "perm": [0, 2, 1]},
            {"name": "cls", "op": "constant", "inputs": [], "shape": [1, 1, "C"]},
            {"name": "cls_n", "op": "expand", "shape": ["N", 1, "C"]},
            {"name": "seq", "op": "concat", "inputs": ["cls_n", "tokens"], "axis": 1},
            {"name": "pos", "op": "constant", "inputs": [], "shape": [1, "S * S + 1", "C"]},
            {"name": "seq_pos", "op": "add", "inputs": ["seq", "pos"]},
            {"name": "seq_norm", "op": "layernorm"},
        ],
    }


def layers_probe(rng):
    combos = [{"batch": b} for b in (1, 8)]
    sizes = {"C": [16, 32, 64, 128, 256, 512], "S": [8, 14, 28, 56, 112]}
    points = spread(rng, combos, sizes, 30, lambda p: p["C"] * p["S"] ** 2 * p["batch"] <= 8 << 20)
    return sweep("probe_layers", "Standalone CNN layers (probes/cnn_layers.json): 16 to 512 "
                 "channels, 8x8 to 112x112, batch 1 and 8.",
                 "probes/cnn_layers.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "C": 64, "S": 56},
                 ["batch", "C", "S"], points)


def recurrent_topology():
    return {
        "format": "ntpbench-topology", "version": 1, "name": "recurrent",
        "description": "Latency calibration probe: recurrent layers as speech and sequence "
                       "models use them: an LSTM, a GRU and a bidirectional LSTM over T steps, "
                       "and a classifier per step. Written by tools/make_calibration_probes.py.",
        "params": {"T": 50, "F": 128, "H": 256},
        "inputs": [{"name": "x", "shape": ["N", "T", "F"]}],
        "layers": [
            {"name": "lstm", "op": "lstm", "units": "H"},
            {"name": "gru", "op": "gru", "units": "H"},
            {"name": "bilstm", "op": "lstm", "units": "H", "direction": "bidirectional"},
            {"name": "fc", "op": "dense", "units": "F"},
        ],
    }


def recurrent_probe(rng):
    combos = [{"batch": b} for b in (1, 4, 8)]
    sizes = {"T": [16, 50, 100, 200], "F": [64, 128, 256, 512], "H": [64, 128, 256, 512, 1024]}
    points = spread(rng, combos, sizes, 12,
                    lambda p: p["T"] * p["H"] * (p["H"] + p["F"]) * p["batch"] <= 200 * 512 * 768 * 4)
    return sweep("probe_recurrent", "LSTM, GRU and bidirectional LSTM layers "
                 "(probes/recurrent.json): 16 to 200 steps, 64 to 512 inputs, 64 to 1024 hidden, "
                 "batch 1 to 8.",
                 "probes/recurrent.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "T": 50, "F": 128, "H": 256},
                 ["batch", "T", "F", "H"], points)


def tensor_ops_topology():
    return {
        "format": "ntpbench-topology", "version": 1, "name": "tensor_ops",
        "description": "Latency calibration probe: the ops exporters write out one by one "
                       "(an attention or a U-Net decoder as ONNX has them): resize, transposed "
                       "convolution, sub, div, pow, tanh, a mean, equal, where, matmul. Written "
                       "by tools/make_calibration_probes.py.",
        "params": {"C": 32, "S": 16},
        "inputs": [{"name": "x", "shape": ["N", "C", "S", "S"]}],
        "layers": [
            {"name": "up", "op": "resize", "size": ["2 * S", "2 * S"], "mode": "linear"},
            {"name": "deconv", "op": "conv_transpose", "inputs": ["x"], "filters": "C",
             "kernel": 2, "stride": 2},
            {"name": "gate", "op": "sigmoid", "inputs": ["up"]},
            {"name": "diff", "op": "sub", "inputs": ["deconv", "up"]},
            {"name": "ratio", "op": "div", "inputs": ["diff", "gate"]},
            {"name": "square", "op": "pow", "exponent": 2},
            {"name": "squash", "op": "tanh"},
            {"name": "mean", "op": "reduce_mean", "axes": [2, 3]},
            {"name": "same", "op": "equal", "inputs": ["mean", "mean"]},
            {"name": "pick", "op": "where", "inputs": ["same", "squash", "square"]},
            {"name": "rows", "op": "reshape", "shape": ["N", "C", "4 * S * S"]},
            {"name": "cols", "op": "transpose", "perm": [0, 2, 1]},
            {"name": "gram", "op": "matmul", "inputs": ["rows", "cols"]},
            {"name": "probs", "op": "softmax"},
        ],
    }


def tensor_ops_probe(rng):
    combos = [{"batch": b} for b in (1, 8)]
    sizes = {"C": [8, 16, 32, 64, 128], "S": [8, 16, 32, 64]}
    points = spread(rng, combos, sizes, 16, lambda p: p["C"] * p["S"] ** 2 * p["batch"] <= 1 << 20)
    return sweep("probe_tensor_ops", "The ops exporters write one by one (probes/tensor_ops.json): "
                 "8 to 128 channels, 8x8 to 64x64 (resized and deconvolved to twice that), batch 1 "
                 "and 8.",
                 "probes/tensor_ops.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "C": 32, "S": 16},
                 ["batch", "C", "S"], points)


def image_conv_topology():
    return {
        "format": "ntpbench-topology", "version": 1, "name": "image_conv",
        "description": "Latency calibration probe: a network's first convolution, over an "
                       "image's few channels (kernels and input reorders of their own), with its "
                       "batchnorm and ReLU, and the pooling after it (as ResNet's). Written by "
                       "tools/make_calibration_probes.py.",
        "params": {"C": 3, "S": 224, "W": 64, "kernel": 7, "stride": 2},
        "inputs": [{"name": "image", "shape": ["N", "C", "S", "S"]}],
        "layers": [
            {"name": "conv", "op": "conv2d", "filters": "W", "kernel": "kernel",
             "stride": "stride", "padding": "(kernel-1)/2", "bias": False},
            {"name": "bn", "op": "batchnorm"},
            {"name": "relu", "op": "relu"},
            {"name": "pool", "op": "max_pool", "kernel": 3, "stride": 2, "padding": 1},
        ],
    }


def image_conv_probe(rng):
    combos = [{"kernel": k, "stride": s, "batch": b}
              for k in (3, 5, 7) for s in (1, 2) for b in (1, 8)]
    # Grey images (one channel) and RGB, the latter more often.
    sizes = {"S": [32, 64, 96, 128, 160, 224], "W": [16, 24, 32, 48, 64], "C": [3, 3, 1]}
    points = spread(rng, combos, sizes, 5, lambda p: True)
    return sweep("probe_image_conv", "A network's first convolution (probes/image_conv.json): "
                 "1 or 3 channels in, 16 to 64 out, kernels 3 to 7, strides 1 and 2, images "
                 "32x32 to 224x224, batch 1 and 8, with its batchnorm, ReLU and a max pooling.",
                 "probes/image_conv.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "C": 3, "S": 224, "W": 64,
                  "kernel": 7, "stride": 2},
                 ["kernel", "stride", "batch", "S", "W", "C"], points)


def inverted_residual_topology():
    return {
        "format": "ntpbench-topology", "version": 1, "name": "inverted_residual",
        "description": "Latency calibration probe: a MobileNet-v2-style inverted residual block "
                       "(a 1x1 expansion by T, a 3x3 depthwise convolution of stride `stride`, a "
                       "1x1 projection to O channels, each with its batchnorm, ReLU6 after the "
                       "first two; the block's input added where R is 1) after a 1x1 convolution "
                       "that gives it its input. Written by tools/make_calibration_probes.py.",
        "params": {"C": 24, "T": 6, "O": 24, "S": 56, "stride": 1, "R": 1},
        "inputs": [{"name": "image", "shape": ["N", "C", "S", "S"]}],
        "layers": [
            {"name": "lead", "op": "conv2d", "filters": "C", "kernel": 1, "bias": False},
            {"name": "expand", "op": "conv2d", "filters": "T*C", "kernel": 1, "bias": False},
            {"name": "expand_bn", "op": "batchnorm"},
            {"name": "expand_relu6", "op": "clipped_relu", "clip": 6},
            {"name": "depthwise", "op": "conv2d", "filters": "T*C", "groups": "T*C",
             "kernel": 3, "stride": "stride", "padding": 1, "bias": False},
            {"name": "depthwise_bn", "op": "batchnorm"},
            {"name": "depthwise_relu6", "op": "clipped_relu", "clip": 6},
            {"name": "project", "op": "conv2d", "filters": "O", "kernel": 1, "bias": False},
            {"name": "project_bn", "op": "batchnorm"},
            {"name": "add", "op": "add", "inputs": ["project_bn", "lead"], "when": "R == 1"},
        ],
    }


def inverted_residual_probe(rng):
    """Blocks as MobileNet v2's and EfficientNet's: stride 1 adding the input, stride 2 widening
    it 1.5x; expansion 4 and 6 (both fused by onednn.inverted_residual=auto where large enough)."""
    combos = [{"stride": s, "batch": b, "T": t} for s in (1, 2) for b in (1, 8) for t in (4, 6)]
    sizes = {"S": [28, 56, 112], "C": [16, 24, 32, 48, 64]}
    # The expanded tensor of the batch, at most MobileNet v2's largest at batch 8 (features.2).
    points = spread(rng, combos, sizes, 6,
                    lambda p: p["T"] * p["C"] * p["S"] ** 2 * p["batch"] <= 10_000_000)
    for p in points:
        p["O"] = p["C"] if p["stride"] == 1 else (p["C"] * 3 // 2 + 7) // 8 * 8
        p["R"] = 1 if p["stride"] == 1 else 0
    return sweep("probe_inverted_residual", "Inverted residual blocks "
                 "(probes/inverted_residual.json): 16 to 64 channels expanded 4x or 6x, images "
                 "28x28 to 112x112, stride 1 with the residual add and stride 2 widening 1.5x, "
                 "batch 1 and 8.",
                 "probes/inverted_residual.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "C": 24, "T": 6, "O": 24,
                  "S": 56, "stride": 1, "R": 1},
                 ["stride", "batch", "T", "S", "C", "O", "R"], points)


def decoder_probe():
    """One Llama-style decoder block (RMSNorm, rotary q/k, grouped-query attention over a key/value
    cache, SwiGLU): a prefill of `prompt` tokens, or one decode step after `past` cached ones."""
    points = []
    for hidden in (256, 512, 1024, 2048):
        heads = hidden // 64
        for batch in (1, 8):
            shapes = [(prompt, 0) for prompt in (16, 64, 256)] + [(1, past) for past in (64, 512)]
            for prompt, past in shapes:
                # A block's work grows with tokens * hidden^2 (~21x that in FLOPs): at most a
                # few GFLOP a run.
                if batch * prompt * hidden * hidden > 2 ** 28:
                    continue
                points.append({"batch": batch, "hidden": hidden, "heads": heads,
                               "kv_heads": heads // 4, "ffn": hidden * 11 // 4,
                               "prompt": prompt, "past": past})
    # Decode steps whose every query head has its own keys and values (GPT-2's, BERT-style
    # decoders': 4x the cache bytes per FLOP of the grouped ones above) and whose heads share one
    # (multi-query): GPT-2's decode attention at batch 8 was priced 2x slow from the grouped
    # samples alone.
    for hidden, kv_heads in ((512, 8), (1024, 16), (1024, 1)):
        for batch in (1, 8):
            for past in (64, 512):
                points.append({"batch": batch, "hidden": hidden, "heads": hidden // 64,
                               "kv_heads": kv_heads, "ffn": hidden * 11 // 4, "prompt": 1,
                               "past": past})
    return sweep("probe_decoder", "One Llama-style decoder block (topologies/llama.json, 1 layer, "
                 "a 1000-token vocabulary): RMSNorm, q/k/v/o dense layers, rotary embeddings, "
                 "key/value caches, grouped-query causal attention, SwiGLU; hidden 256 to 2048, "
                 "a prefill of 16 to 256 tokens or a decode step after 64 or 512, batch 1 and 8; "
                 "decode steps with multi-head and multi-query attention.",
                 "../topologies/llama.json",
                 {"backend": "onednn", "precision": "f32", "batch": 1, "layers": 1,
                  "vocab": 1000, "context": 1024, "hidden": 2048, "heads": 32, "kv_heads": 8,
                  "ffn": 5632, "prompt": 128, "past": 0},
                 ["batch", "hidden", "heads", "kv_heads", "ffn", "prompt", "past"], points)


def random_cnn(rng, index):
    """A random CNN of the kinds people build: a strided stem, then plain, residual and
    depthwise-separable blocks with occasional pooling, global pooling and a classifier."""
    size = rng.choice([64, 96, 128, 160, 192, 224])
    layers = []
    width = rng.choice([16, 24, 32])

    def conv(name, inputs, filters, kernel, stride=1, groups=1, act="relu"):
        layer = {"name": name, "op": "conv2d", "filters": filters, "kernel": kernel,
                 "stride": stride, "padding": (kernel - 1) // 2, "bias": False}
        if inputs:
            layer["inputs"] = [inputs]
        if groups > 1:
            layer["groups"] = groups
        layers.append(layer)
        layers.append({"name": name + "_bn", "op": "batchnorm"})
        if act == "relu":
            layers.append({"name": name + "_relu", "op": "relu"})
            return name + "_relu"
        if act == "relu6":
            layers.append({"name": name + "_relu6", "op": "clipped_relu", "clip": 6})
            return name + "_relu6"
        return name + "_bn"

    x = conv("stem", None, width, rng.choice([3, 5, 7]), 2)
    channels = width
    resolution = size // 2
    for b in range(rng.randint(4, 9)):
        kind = rng.choice(["plain", "residual", "separable", "separable", "pool"])
        stride = 2 if resolution > 8 and rng.random() < 0.35 else 1
        name = f"block{b}"
        if kind == "pool" and resolution > 8:
            layers.append({"name": name + "_pool", "op": rng.choice(["max_pool", "avg_pool"]),
                           "inputs": [x], "kernel": 2})
            x = name + "_pool"
            resolution //= 2
            continue
        out = min(512, channels * rng.choice([1, 1, 2]))
        if kind == "residual" and stride == 1 and out == channels:
            h = conv(name + "_a", x, channels, 3)
            h = conv(name + "_b", h, channels, 3, act=None)
            layers.append({"name": name + "_add", "op": "add", "inputs": [h, x]})
            layers.append({"name": name + "_relu", "op": "relu"})
            x = name + "_relu"
        elif kind == "separable":
            h = conv(name + "_dw", x, channels, rng.choice([3, 5]), stride, groups=channels,
                     act="relu6")
            x = conv(name + "_pw", h, out, 1, act=rng.choice(["relu6", None]))
            channels = out
        else:
            x = conv(name + "_conv", x, out, rng.choice([1, 3, 3, 5]), stride)
            channels = out
        resolution = (resolution + stride - 1) // stride
    layers.append({"name": "gap", "op": "global_avg_pool", "inputs": [x]})
    layers.append({"name": "fc", "op": "dense", "units": rng.choice([10, 100, 1000])})
    return {"format": "ntpbench-topology", "version": 1, "name": f"random_cnn_{index}",
            "description": "A random CNN (tools/make_calibration_probes.py, fixed seed): "
                           "held-out for `ntpbench predict --check`.",
            "params": {}, "inputs": [{"name": "image", "shape": ["N", 3, size, size]}],
            "layers": layers}


def random_mlp(rng, index):
    layers = []
    for i in range(rng.randint(2, 5)):
        layers.append({"name": f"fc{i}", "op": "dense",
                       "units": rng.choice([128, 256, 384, 512, 768, 1024, 1536, 2048, 3072]),
                       "activation": rng.choice(["relu", "relu", "none"])})
    layers.append({"name": "out", "op": "dense", "units": rng.choice([10, 100, 1000])})
    layers.append({"name": "probs", "op": "softmax"})
    return {"format": "ntpbench-topology", "version": 1, "name": f"random_mlp_{index}",
            "description": "A random MLP (tools/make_calibration_probes.py, fixed seed): "
                           "held-out for `ntpbench predict --check`.",
            "params": {}, "inputs": [{"name": "x", "shape": ["N", rng.choice([100, 300, 784, 1500, 3000])]}],
            "layers": layers}


def heldout():
    return {
        "format": "ntpbench-heldout", "version": 1,
        "description": "Models `ntpbench predict --check` runs (at batch 1 and 8 unless "
                       "--batch says otherwise): none is a probe of the calibration.",
        "models": [
            {"topology": "../../topologies/resnet50.json"},
            {"topology": "../../topologies/resnet50.json", "set": {"size": 160}},
            {"topology": "../../topologies/mobilenet_v2.json"},
            {"topology": "../../topologies/mobilenet_v2.json", "set": {"size": 160}},
            {"topology": "../../topologies/tiny_cnn.json", "set": {"width": 32, "size": 64}},
            {"topology": "../../topologies/mlp.json", "set": {"n_hidden": 1500}},
            {"topology": "../../topologies/bert.json",
             "set": {"layers": 2, "seq": 96, "vocab": 2000}},
            {"topology": "../../topologies/vit.json", "set": {"layers": 2}},
            {"topology": "../../topologies/llama.json",
             "set": {"layers": 2, "hidden": 768, "heads": 12, "kv_heads": 4, "ffn": 2048,
                     "prompt": 48, "vocab": 2000, "context": 1024}},
            {"topology": "../../topologies/gpt2.json",
             "set": {"layers": 2, "prompt": 1, "past": 384, "vocab": 2000}},
            {"topology": "random/"},
        ],
    }


def main():
    rng = random.Random(20261126)
    write("calibration/probes/cnn_layers.json", layers_topology())
    write("calibration/cnn.json", cnn_probe(rng))
    write("calibration/dense.json", dense_probe(rng))
    write("calibration/transformer.json", transformer_probe())
    write("calibration/layers.json", layers_probe(rng))
    write("calibration/probes/recurrent.json", recurrent_topology())
    write("calibration/recurrent.json", recurrent_probe(rng))
    write("calibration/probes/tensor_ops.json", tensor_ops_topology())
    write("calibration/tensor_ops.json", tensor_ops_probe(rng))
    write("calibration/probes/image_conv.json", image_conv_topology())
    write("calibration/image_conv.json", image_conv_probe(rng))
    write("calibration/decoder.json", decoder_probe())
    write("calibration/probes/inverted_residual.json", inverted_residual_topology())
    write("calibration/inverted_residual.json", inverted_residual_probe(random.Random(20261130)))
    held = random.Random(7)
    for i in range(8):
        write(f"calibration/heldout/random/cnn_{i}.json", random_cnn(held, i))
    for i in range(4):
        write(f"calibration/heldout/random/mlp_{i}.json", random_mlp(held, i))
    write("calibration/heldout/heldout.json", heldout())


if __name__ == "__main__":
    main()
