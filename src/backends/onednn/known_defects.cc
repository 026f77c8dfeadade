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
  if (impl.rfind("x64:gemm", 0) == 0 && pd.dst_desc().dims().size() == 4) {
    const dnnl::memory::desc dst = pd.dst_desc();
    // The attributes outlive the post-ops read from them (oneDNN 2.6's are a weak handle).
    const dnnl::primitive_attr attr = pd.get_primitive_attr();
    const dnnl::post_ops ops = attr.get_post_ops();
    bool binary = false;
    for (int i = 0; i < ops.len(); ++i) binary |= ops.kind(i) == dnnl::primitive::kind::binary;
    if (binary &&
        dst == dnnl::memory::desc(dst.dims(), dst.data_type(), dnnl::memory::format_tag::nhwc)) {
      return "oneDNN 2.6 gemm convolution: a binary post-op's operand is read wrongly in NHWC";
    }
  }
  return "";
}

void SkipDefectiveConvolution(dnnl::convolution_forward::primitive_desc* pd,
                              const dnnl::memory::dims& strides, dnnl::memory::dim input_channels) {
  while (*ConvolutionDefect(*pd, strides, input_channels) != '\0' && pd->next_impl()) {
  }
}

}  // namespace ntpb::onednn
