# Regenerates tests/onnx/rnn_initial_states (run from that folder with /usr/bin/python3).
import torch, torch.nn as nn
from onnx import numpy_helper
torch.manual_seed(0)
class M(nn.Module):
    def __init__(s):
        super().__init__()
        s.l = nn.LSTM(8, 6, num_layers=2, bidirectional=True, batch_first=True)
        s.g = nn.GRU(12, 5)
    def forward(s, x, h0, c0, g0):
        y, _ = s.l(x, (h0, c0))
        z, hg = s.g(y.transpose(0, 1), g0)
        return z, hg
m = M().eval()
x = torch.randn(3, 7, 8); h0 = torch.randn(4, 3, 6); c0 = torch.randn(4, 3, 6); g0 = torch.randn(1, 3, 5)
torch.onnx.export(m, (x, h0, c0, g0), "model.onnx", opset_version=17,
                  input_names=["x", "h0", "c0", "g0"], output_names=["z", "hg"],
                  dynamic_axes={"x": {0: "batch", 1: "T"}, "h0": {1: "batch"}, "c0": {1: "batch"},
                                "g0": {1: "batch"}, "z": {0: "T", 1: "batch"}, "hg": {1: "batch"}})
with torch.no_grad():
    z, hg = m(x, h0, c0, g0)
for i, t in enumerate([x, h0, c0, g0]):
    open(f"test_data_set_0/input_{i}.pb", "wb").write(numpy_helper.from_array(t.numpy()).SerializeToString())
for i, t in enumerate([z, hg]):
    open(f"test_data_set_0/output_{i}.pb", "wb").write(numpy_helper.from_array(t.numpy()).SerializeToString())
