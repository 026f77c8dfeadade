// oneDNN's side of i8 runs (the scheme: src/backends/common/quantization.h).
//  - Quantizing an activation is a "quantize" inlay step (a scaling reorder) in front of its
//    consumer; the consumer dequantizes in its output scales and writes f32, or requantizes
//    when every reader quantizes (Builder::StoreOutputQuantized).
#pragma once

#include <dnnl.hpp>

#include "src/backends/common/quantization.h"

namespace ntpb::onednn {

// u8 for a tensor never negative in the reference run, s8 otherwise.
dnnl::memory::data_type QuantizedType(const TensorRange& range);

// Whether oneDNN's u8 x s8 kernels use VNNI dot products here (after ONEDNN_MAX_CPU_ISA).
bool HasVnniDotProducts();
// The largest |q| of a quantized weight: 127 with VNNI; else 63. Without VNNI oneDNN multiplies
// with vpmaddubsw, which adds two u8 x s8 products into a saturating s16 (2 * 255 * 127 >
// 32767: large activations against large weights clip, up to 48% off in a dense layer);
// 7-bit weights cannot clip (2 * 255 * 63 < 32767). oneDNN's int8 guide says the same.
int WeightLevels();

}  // namespace ntpb::onednn
