#include "src/backends/onednn/known_defects.h"

#include <string>

namespace ntpb::onednn {

const char* ConvolutionDefect(const dnnl::convolution_forward::primitive_desc& pd,
                              const dnnl::memory::dims& strides, dnnl::memory::dim input_channels) {
  const std::string impl = pd.impl_info_str();
  bool strided = false;
  for (const dnnl::memory::dim s : strides) strided |= s > 1;
  if (impl.rfind("jit_uni_int8_1x1:", 0) == 0 && strided && input_channels % 16 != 0) {
    return "oneDNN 2.6 jit_uni_int8_1x1: strided 1x1 with input channels not a multiple of 16 "
           "is wrong from run to run";
  }
  return "";
}

void SkipDefectiveConvolution(dnnl::convolution_forward::primitive_desc* pd,
                              const dnnl::memory::dims& strides, dnnl::memory::dim input_channels) {
  while (*ConvolutionDefect(*pd, strides, input_channels) != '\0' && pd->next_impl()) {
  }
}

}  // namespace ntpb::onednn
