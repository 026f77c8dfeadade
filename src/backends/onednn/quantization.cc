#include "src/backends/onednn/quantization.h"

namespace ntpb::onednn {

dnnl::memory::data_type QuantizedType(const TensorRange& range) {
  return range.unsigned_8bit() ? dnnl::memory::data_type::u8 : dnnl::memory::data_type::s8;
}

bool HasVnniDotProducts() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx2_vnni:
    case dnnl::cpu_isa::avx512_core_vnni:
    case dnnl::cpu_isa::avx512_core_bf16:
    case dnnl::cpu_isa::avx512_core_amx:
      return true;
    default:
      return false;
  }
}

int WeightLevels() { return HasVnniDotProducts() ? 127 : 63; }

}  // namespace ntpb::onednn
