// Writes the ONNX test models to a folder: `write_onnx_test_models DIR` (for ntpbench inspect
// and as the ONNX fuzzer's seed corpus).
#include <cstdio>
#include <fstream>

#include "tests/onnx/onnx_test_models.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  for (const auto& [name, model] : ntpb::testing::TestModels()) {
    const std::string path = std::string(argv[1]) + "/" + name + ".onnx";
    std::ofstream(path, std::ios::binary) << model.SerializeAsString();
    std::printf("%s\n", path.c_str());
  }
  return 0;
}
