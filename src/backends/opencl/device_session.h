// One OpenCL device as the backend holds it for the process: its context, the kernels' program
// (built once, program_cache.h) and the work-group sizes chosen for it.
#pragma once

#include <string>

#include "src/backends/opencl/cl_runtime.h"
#include "src/backends/opencl/program_cache.h"

namespace ntpb::opencl {

struct DeviceSession {
  DeviceInfo info;
  Context context;
  BuiltProgram program;
  // GEMM: a work-group computes tile x tile of C, each work-item wpt x wpt of it.
  int gemm_tile = 64, gemm_wpt = 4;
  // A CPU device runs kernels.cl's gemm_packed (a dense layer's weights packed in panels) and
  // gemm_vec (register blocks, no local memory), any other the tiled gemm_tiled; on PoCL's CPU
  // device those are about 10x faster than gemm_tiled at 1024^3 (docs/opencl.md).
  bool vector_gemm = false;
  int reduction_local = 64;  // work-items of a tree reduction (a power of two)
  // Work-items of a row norm's group (kernels.cl's NORM_LOCAL, a power of two): 64 on a CPU
  // device; 256 on others, where a decode step's one row is one group and 64 work-items each
  // waiting on 32 loads in turn left rms_norm at 18 us a row of 2048 on an H200.
  int norm_local = 64;
  // gemm_skinny_split (kernels.cl's SPLIT_GROUP and SPLIT_UNROLL): the most work-items of its
  // group (512; 256 on a CPU device, which runs a group as a loop on one core and compiles it
  // per size) and the rows of B each slice loads before it uses them.
  int split_group = 512, split_unroll = 8;
  size_t elementwise_local = 0;  // 1-D kernels' work-group size; 0: the driver's choice
  // Elements per work-item of the elementwise kernels (kernels.cl's CHUNK): 16 on a CPU device,
  // where PoCL then vectorises each work-item's loop (a relu of 800k floats: 0.6 ms at 1, 0.08-0.19
  // ms at 16, 0.07-0.17 ms at 64; an add 1.4 / 0.27-0.43 / 0.68-0.96 ms); 1 elsewhere, so that a
  // GPU's neighbouring work-items read neighbouring addresses.
  int elementwise_chunk = 1;
  // Bytes of a stored tensor element: 4, or 2 in an f16 session (kernels.cl's STORE_HALF).
  int element_bytes = 4;

  cl_kernel NewKernel(const char* name) const;  // the caller owns it
};

// The session for `spec` (cl_runtime.h's SelectDevice) whose kernels store tensors as float, or
// as half (`half_storage`: f16 runs), created on first use and kept.
const DeviceSession& SessionFor(const std::string& spec, bool half_storage = false);

// The kernels' OpenCL C source (kernels.cl).
const std::string& KernelSource();

}  // namespace ntpb::opencl
