#!/usr/bin/env python3
"""Writes the transformer topologies: topologies/bert.json, gpt2.json, llama.json and vit.json.

Each has a param for every size (sequence, width, heads, MLP width, vocabulary, blocks). The
blocks are written up to a maximum and each carries `when: "layers > i"`: a left-out block
passes its input on (docs/topology-format.md), so `--set layers=4` runs the first 4 blocks and
`sweep` can vary depth. Every block is a marker ("block<i>"). Weights are random, as for every
topology (PyTorch's default initialisation per op).

  bert:  BERT-base encoder (post-LayerNorm), token + position embeddings, pooler.
  gpt2:  GPT-2 small decoder (pre-LayerNorm, causal), learned positions, logits of the last token.
  llama: Llama-style decoder sized as TinyLlama 1.1B: RMSNorm, rotary positions, grouped-query
         attention, SwiGLU MLP, no biases, logits of the last token.
  vit:   ViT-B/16 image classifier (pre-LayerNorm), patch embedding, class token.

Run: python3 tools/make_transformers.py (writes the four files next to the other topologies).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "topologies")


# A decoder's inference: `prompt` new tokens after `past` already in its key/value caches (a
# prefill: past 0; a decode step: prompt 1); `gen`: the tokens `--scenario generate` decodes
# after the prompt (prompt + gen must fit in `context`).
DECODER_PARAMS = {"prompt": 128, "past": 0, "gen": 64}


def block_when(i):
    return "layers > %d" % i


def attention_block(layers, markers, i, x, *, norm, pre_norm, causal, rotary, gated, bias,
                    eps, act):
    """One transformer block reading tensor `x`; returns the name of its output."""
    p = "blk%d." % i
    when = block_when(i)
    def add(layer):
        layer["when"] = when
        layers.append(layer)
        return layer["name"]
    def norm_layer(name, source):
        if norm == "rms_norm":
            return add({"name": p + name, "op": "rms_norm", "inputs": [source], "epsilon": eps})
        return add({"name": p + name, "op": "layernorm", "inputs": [source], "epsilon": eps})
    h = norm_layer("norm1", x) if pre_norm else x
    q = add({"name": p + "q", "op": "dense", "inputs": [h], "units": "hidden", "bias": bias})
    kv_units = "kv_heads * (hidden / heads)" if rotary else "hidden"
    k = add({"name": p + "k", "op": "dense", "inputs": [h], "units": kv_units, "bias": bias})
    v = add({"name": p + "v", "op": "dense", "inputs": [h], "units": kv_units, "bias": bias})
    attn = {"name": p + "attn", "op": "attention", "inputs": [q, k, v], "heads": "heads",
            "causal": causal}
    if rotary:
        q = add({"name": p + "q_rot", "op": "rotary", "inputs": [q], "heads": "heads",
                 "offset": "past"})
        k = add({"name": p + "k_rot", "op": "rotary", "inputs": [k], "heads": "kv_heads",
                 "offset": "past"})
        attn["inputs"] = [q, k, v]
        attn["kv_heads"] = "kv_heads"
    if causal:  # a decoder: keys and values appended to its caches, attention over all of them
        k = add({"name": p + "k_cache", "op": "kv_cache", "inputs": [k], "past": "past"})
        v = add({"name": p + "v_cache", "op": "kv_cache", "inputs": [v], "past": "past"})
        attn["inputs"] = [q, k, v]
    a = add(attn)
    o = add({"name": p + "o", "op": "dense", "inputs": [a], "units": "hidden", "bias": bias})
    r1 = add({"name": p + "add1", "op": "add", "inputs": [o, x]})
    h2 = norm_layer("norm2", r1) if pre_norm else norm_layer("norm1", r1)
    if gated:
        up = add({"name": p + "gate_up", "op": "dense", "inputs": [h2], "units": "2 * ffn",
                  "bias": bias})
        m = add({"name": p + "swiglu", "op": "swiglu", "inputs": [up]})
    else:
        m = add({"name": p + "fc1", "op": "dense", "inputs": [h2], "units": "ffn", "bias": bias,
                 "activation": act})
    down = add({"name": p + "fc2", "op": "dense", "inputs": [m], "units": "hidden", "bias": bias})
    r2 = add({"name": p + "add2", "op": "add", "inputs": [down, r1 if pre_norm else h2]})
    out = r2 if pre_norm else norm_layer("norm2", r2)
    markers.append({"name": "block%d" % i, "start": p + "norm1" if pre_norm else p + "q",
                    "end": out})
    return out


def topology(name, description, params, inputs, layers, markers, outputs=None):
    t = {"format": "ntpbench-topology", "version": 1, "name": name, "description": description,
         "params": params, "inputs": inputs, "layers": layers}
    if outputs:
        t["outputs"] = outputs
    t["markers"] = markers
    return t


def bert(max_layers=24):
    layers, markers = [], []
    layers.append({"name": "tok_emb", "op": "embedding", "inputs": ["ids"], "vocab": "vocab",
                   "dim": "hidden"})
    layers.append({"name": "pos_emb", "op": "constant", "inputs": [],
                   "shape": [1, "seq", "hidden"]})
    layers.append({"name": "emb_add", "op": "add", "inputs": ["tok_emb", "pos_emb"]})
    x = "emb_norm"
    layers.append({"name": x, "op": "layernorm", "inputs": ["emb_add"], "epsilon": 1e-12})
    for i in range(max_layers):
        x = attention_block(layers, markers, i, x, norm="layernorm", pre_norm=False,
                            causal=False, rotary=False, gated=False, bias=True, eps=1e-12,
                            act="gelu")
    layers.append({"name": "cls", "op": "slice", "inputs": [x], "axis": 1, "start": 0, "size": 1})
    layers.append({"name": "cls_flat", "op": "reshape", "shape": ["N", "hidden"]})
    layers.append({"name": "pooler", "op": "dense", "units": "hidden", "activation": "tanh"})
    return topology(
        "bert", "BERT-base encoder as Hugging Face's BertModel (post-LayerNorm blocks, GELU MLP, "
        "learned positions, pooler on the [CLS] token; no token types or padding mask: every "
        "token is real). Blocks beyond `layers` are left out (at most %d)." % max_layers,
        {"seq": 128, "hidden": 768, "heads": 12, "ffn": 3072, "vocab": 30522, "layers": 12},
        [{"name": "ids", "shape": ["N", "seq"], "integers": [0, "vocab"]}], layers, markers)


def gpt2(max_layers=48):
    layers, markers = [], []
    layers.append({"name": "tok_emb", "op": "embedding", "inputs": ["ids"], "vocab": "vocab",
                   "dim": "hidden"})
    layers.append({"name": "pos_emb", "op": "embedding", "inputs": ["positions"],
                   "vocab": "context", "dim": "hidden"})
    x = "emb_add"
    layers.append({"name": x, "op": "add", "inputs": ["tok_emb", "pos_emb"]})
    for i in range(max_layers):
        x = attention_block(layers, markers, i, x, norm="layernorm", pre_norm=True, causal=True,
                            rotary=False, gated=False, bias=True, eps=1e-5, act="gelu")
    layers.append({"name": "norm_f", "op": "layernorm", "inputs": [x]})
    layers.append({"name": "last", "op": "slice", "axis": 1, "start": "prompt - 1", "size": 1})
    layers.append({"name": "lm_head", "op": "dense", "units": "vocab", "bias": False})
    return topology(
        "gpt2", "GPT-2 small decoder as Hugging Face's GPT2LMHeadModel over `prompt` new "
        "tokens after `past` cached ones (pre-LayerNorm blocks, causal attention over key/value "
        "caches, GELU MLP, learned positions of `context`), the next-token logits of the last "
        "position. One inference is a prefill (past 0) or, with prompt 1, a decode step; "
        "`--scenario generate` decodes `gen` tokens after the prompt. The LM head's weight is "
        "counted apart (GPT-2 ties it to the token embedding). Blocks beyond `layers` are left "
        "out (at most %d)." % max_layers,
        DECODER_PARAMS | {"context": 1024, "hidden": 768, "heads": 12, "ffn": 3072,
                          "vocab": 50257, "layers": 12},
        [{"name": "ids", "shape": ["N", "prompt"], "integers": [0, "vocab"]},
         {"name": "positions", "shape": ["N", "prompt"], "integers": [0, "context"]}],
        layers, markers)


def llama(max_layers=32):
    layers, markers = [], []
    x = "tok_emb"
    layers.append({"name": x, "op": "embedding", "inputs": ["ids"], "vocab": "vocab",
                   "dim": "hidden"})
    for i in range(max_layers):
        x = attention_block(layers, markers, i, x, norm="rms_norm", pre_norm=True, causal=True,
                            rotary=True, gated=True, bias=False, eps=1e-5, act="none")
    layers.append({"name": "norm_f", "op": "rms_norm", "inputs": [x], "epsilon": 1e-5})
    layers.append({"name": "last", "op": "slice", "axis": 1, "start": "prompt - 1", "size": 1})
    layers.append({"name": "lm_head", "op": "dense", "units": "vocab", "bias": False})
    return topology(
        "llama", "Llama-style decoder sized as TinyLlama 1.1B over `prompt` new tokens after "
        "`past` cached ones (of at most `context`): RMSNorm, rotary positions on q and k, "
        "grouped-query attention (`kv_heads` key/value heads) over key/value caches, SwiGLU MLP "
        "(gate and up projections as one dense layer), no biases, the next-token logits of the "
        "last position. One inference is a prefill (past 0) or, with prompt 1, a decode step; "
        "`--scenario generate` decodes `gen` tokens after the prompt. Blocks beyond `layers` are "
        "left out (at most %d)." % max_layers,
        DECODER_PARAMS | {"context": 2048, "hidden": 2048, "heads": 32, "kv_heads": 4,
                          "ffn": 5632, "vocab": 32000, "layers": 22},
        [{"name": "ids", "shape": ["N", "prompt"], "integers": [0, "vocab"]}], layers, markers)


def vit(max_layers=24):
    layers, markers = [], []
    grid = "(size / patch) * (size / patch)"
    layers.append({"name": "patch", "op": "conv2d", "inputs": ["image"], "filters": "hidden",
                   "kernel": "patch", "stride": "patch"})
    layers.append({"name": "patch_flat", "op": "reshape", "shape": ["N", "hidden", grid]})
    layers.append({"name": "tokens", "op": "transpose", "perm": [0, 2, 1]})
    layers.append({"name": "cls_token", "op": "constant", "inputs": [], "shape": [1, 1, "hidden"]})
    layers.append({"name": "cls_batch", "op": "expand", "shape": ["N", 1, "hidden"]})
    layers.append({"name": "with_cls", "op": "concat", "inputs": ["cls_batch", "tokens"],
                   "axis": 1})
    layers.append({"name": "pos_emb", "op": "constant", "inputs": [],
                   "shape": [1, grid + " + 1", "hidden"]})
    x = "emb_add"
    layers.append({"name": x, "op": "add", "inputs": ["with_cls", "pos_emb"]})
    for i in range(max_layers):
        x = attention_block(layers, markers, i, x, norm="layernorm", pre_norm=True, causal=False,
                            rotary=False, gated=False, bias=True, eps=1e-6, act="gelu")
    layers.append({"name": "norm_f", "op": "layernorm", "inputs": [x], "epsilon": 1e-6})
    layers.append({"name": "cls", "op": "slice", "axis": 1, "start": 0, "size": 1})
    layers.append({"name": "cls_flat", "op": "reshape", "shape": ["N", "hidden"]})
    layers.append({"name": "head", "op": "dense", "units": "n_classes"})
    return topology(
        "vit", "ViT-B/16 image classifier as torchvision's vit_b_16 (16x16 patches by a strided "
        "convolution, class token, learned positions, pre-LayerNorm blocks, GELU MLP, head on "
        "the class token). Blocks beyond `layers` are left out (at most %d)." % max_layers,
        {"size": 224, "patch": 16, "hidden": 768, "heads": 12, "ffn": 3072, "n_classes": 1000,
         "layers": 12},
        [{"name": "image", "shape": ["N", 3, "size", "size"]}], layers, markers)


def write(t):
    # One layer per line, as the other shipped topologies: diffs stay readable.
    lines = ["{"]
    head = {k: v for k, v in t.items() if k not in ("layers", "markers")}
    for k, v in head.items():
        lines.append("  %s: %s," % (json.dumps(k), json.dumps(v)))
    lines.append('  "layers": [')
    lines.append(",\n".join("    " + json.dumps(l) for l in t["layers"]))
    lines.append("  ],")
    lines.append('  "markers": [')
    lines.append(",\n".join("    " + json.dumps(m) for m in t["markers"]))
    lines.append("  ]")
    lines.append("}")
    path = os.path.join(OUT, t["name"] + ".json")
    with open(path + ".tmp", "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(path + ".tmp", path)


if __name__ == "__main__":
    for make in (bert, gpt2, llama, vit):
        write(make())
