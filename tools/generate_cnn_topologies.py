#!/usr/bin/env python3
"""Writes topologies/resnet50.json and topologies/mobilenet_v2.json.

Layer for layer as torchvision builds them (ResNet-50 v1.5: stride on the 3x3 conv;
MobileNetV2 width 1.0), with batchnorm and activations as their own layers, so parameter
counts match torchvision: 25,557,032 and 3,504,872. Run from the repository root.
"""
import json


def conv(layers, name, inputs, filters, kernel, stride=1, padding=0, groups=1):
    layer = {"name": name, "op": "conv2d", "filters": filters, "kernel": kernel, "bias": False}
    if inputs is not None:
        layer["inputs"] = [inputs]
    if stride != 1:
        layer["stride"] = stride
    if padding:
        layer["padding"] = padding
    if groups != 1:
        layer["groups"] = groups
    layers.append(layer)
    return name


def bn(layers, name, act=None, clip=None):
    layers.append({"name": name + "_bn", "op": "batchnorm"})
    if act == "relu":
        layers.append({"name": name + "_relu", "op": "relu"})
        return name + "_relu"
    if act == "relu6":
        layers.append({"name": name + "_relu6", "op": "clipped_relu", "clip": 6})
        return name + "_relu6"
    return name + "_bn"


def topology(name, description, layers, markers):
    return {
        "format": "ntpbench-topology",
        "version": 1,
        "name": name,
        "description": description,
        "params": {"size": 224, "n_classes": 1000},
        "inputs": [{"name": "image", "shape": ["N", 3, "size", "size"]}],
        "layers": layers,
        "markers": markers,
    }


def resnet50():
    layers = []
    conv(layers, "conv1", None, 64, 7, 2, 3)
    x = bn(layers, "conv1", "relu")
    layers.append({"name": "maxpool", "op": "max_pool", "kernel": 3, "stride": 2, "padding": 1})
    x = "maxpool"
    in_ch = 64
    markers = [{"name": "stem", "start": "conv1", "end": "maxpool"}]
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], 1):
        first_layer = None
        for b in range(blocks):
            p = f"layer{stage}.{b}"
            s = stride if b == 0 else 1
            h = bn(layers, conv(layers, p + ".conv1", x, width, 1), "relu")
            first_layer = first_layer or p + ".conv1"
            h = bn(layers, conv(layers, p + ".conv2", h, width, 3, s, 1), "relu")
            h = bn(layers, conv(layers, p + ".conv3", h, width * 4, 1))
            shortcut = x
            if b == 0:
                shortcut = bn(layers, conv(layers, p + ".downsample", x, width * 4, 1, s))
            layers.append({"name": p + ".add", "op": "add", "inputs": [h, shortcut]})
            layers.append({"name": p + ".relu", "op": "relu"})
            x = p + ".relu"
            in_ch = width * 4
        markers.append({"name": f"layer{stage}", "start": first_layer, "end": x})
    layers.append({"name": "avgpool", "op": "global_avg_pool", "inputs": [x]})
    layers.append({"name": "fc", "op": "dense", "units": "n_classes"})
    markers.append({"name": "head", "start": "avgpool", "end": "fc"})
    return topology("resnet50", "ResNet-50 v1.5 as in torchvision (stride on the 3x3 conv), "
                    "224x224 input, 1000 classes.", layers, markers)


def mobilenet_v2():
    layers = []
    conv(layers, "features.0", None, 32, 3, 2, 1)
    x = bn(layers, "features.0", "relu6")
    in_ch = 32
    idx = 1
    markers = [{"name": "stem", "start": "features.0", "end": x}]
    first_block = None
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            p = f"features.{idx}"
            hidden = in_ch * t
            h = x
            if t != 1:
                h = bn(layers, conv(layers, p + ".expand", h, hidden, 1), "relu6")
            h = bn(layers, conv(layers, p + ".depthwise", h, hidden, 3, stride, 1, hidden), "relu6")
            h = bn(layers, conv(layers, p + ".project", h, c, 1))
            first_block = first_block or (p + ".expand" if t != 1 else p + ".depthwise")
            if stride == 1 and in_ch == c:
                layers.append({"name": p + ".add", "op": "add", "inputs": [h, x]})
                h = p + ".add"
            x = h
            in_ch = c
            idx += 1
    markers.append({"name": "blocks", "start": first_block, "end": x})
    conv(layers, f"features.{idx}", x, 1280, 1)
    x = bn(layers, f"features.{idx}", "relu6")
    layers.append({"name": "avgpool", "op": "global_avg_pool", "inputs": [x]})
    layers.append({"name": "classifier", "op": "dense", "units": "n_classes"})
    markers.append({"name": "head", "start": f"features.{idx}", "end": "classifier"})
    return topology("mobilenet_v2", "MobileNetV2 (width 1.0) as in torchvision, 224x224 input, "
                    "1000 classes; ReLU6 is clipped_relu with clip 6.", layers, markers)


def write(path, doc):
    # One layer per line: readable diffs, and still plain JSON.
    head = {k: v for k, v in doc.items() if k not in ("layers", "markers")}
    text = json.dumps(head, indent=2)[:-2] + ',\n  "layers": [\n'
    text += ",\n".join("    " + json.dumps(l) for l in doc["layers"])
    text += '\n  ],\n  "markers": [\n'
    text += ",\n".join("    " + json.dumps(m) for m in doc["markers"])
    text += "\n  ]\n}\n"
    json.loads(text)
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    write("topologies/resnet50.json", resnet50())
    write("topologies/mobilenet_v2.json", mobilenet_v2())
