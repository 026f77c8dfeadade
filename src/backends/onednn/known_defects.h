// oneDNN implementations this project found giving wrong results, and for which shapes; the
// builders step past them to oneDNN's next implementation for the same primitive.
#pragma once

#include <dnnl.hpp>

namespace ntpb::onednn {

// Why `pd`'s implementation must not run this convolution, or "" when it may. `input_channels`
// per group.
//
// oneDNN 2.6's int8 1x1 kernel for AVX2 and SSE4.1 (jit_uni_int8_1x1) is wrong, and differently
// from run to run, for a strided 1x1 convolution whose input channels are an odd number of SIMD
// blocks (AVX2: 8, 24, 40, 56; SSE4.1: 4, 12) on 2 threads: with batch 2, a few values wrong in
// 0 to 137 of 200 runs per process (AMD EPYC Zen 5 under ONEDNN_MAX_CPU_ISA). Stride 1, one
// thread, batch 1, or 16, 32, 48 channels were always right; AVX-512 takes another kernel. Its
// strided path copies the input into a per-thread buffer first ("rtus"), which oneDNN issue #6035
// found written past for other channel counts. Reproducer: tools/repro/onednn_int8_1x1_strided.cc.
// Any channel count that is not a multiple of 16 is avoided (4, 12, 20 passed, but share the path).
//
// oneDNN 2.6's gemm convolution (x64:gemm:jit, what a 1x1 convolution without a JIT kernel of its
// own takes: f32 under ONEDNN_MAX_CPU_ISA=SSE41, 130 -> 300 channels) adds a binary post-op's
// operand from the wrong places in NHWC (errors of 2 on values of 1-3, at any thread count, with
// or without bias; NCHW and a sum post-op over the destination are right).
// Reproducer: tools/repro/onednn_gemm_conv_binary_nhwc.cc.
const char* ConvolutionDefect(const dnnl::convolution_forward::primitive_desc& pd,
                              const dnnl::memory::dims& strides, dnnl::memory::dim input_channels);

// Moves `pd` past implementations with a ConvolutionDefect; keeps the last one when every
// implementation has one (oneDNN's reference kernel never does).
void SkipDefectiveConvolution(dnnl::convolution_forward::primitive_desc* pd,
                              const dnnl::memory::dims& strides, dnnl::memory::dim input_channels);

}  // namespace ntpb::onednn
