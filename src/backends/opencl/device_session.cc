#include "src/backends/opencl/device_session.h"

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "src/backends/opencl/kernel_source.h"  // generated from kernels.cl
#include "src/ops/activations.h"

namespace ntpb::opencl {

const std::string& KernelSource() {
  // The activation codes come from the one table the host code reads too.
  static const std::string source = ActivationCodeDefines() + kKernelSource;
  return source;
}

cl_kernel DeviceSession::NewKernel(const char* name) const {
  cl_int status = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program.program, name, &status);
  Check(status, (std::string("clCreateKernel ") + name).c_str());
  return k;
}

namespace {

std::unique_ptr<DeviceSession> Open(const std::string& spec, bool half_storage) {
  auto s = std::make_unique<DeviceSession>();
  s->info = SelectDevice(spec);
  cl_int status = CL_SUCCESS;
  const cl_context_properties props[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(s->info.platform), 0};
  s->context = Context(clCreateContext(props, 1, &s->info.device, nullptr, nullptr, &status));
  Check(status, "clCreateContext");
  // 256 work-items per GEMM work-group where the device allows it (16 x 16, 4 x 4 each), else
  // 64 (8 x 8 on a 32 x 32 tile): the largest register blocking every OpenCL 1.2 device runs.
  if (s->info.max_work_group_size < 256) s->gemm_tile = 32;
  s->vector_gemm = s->info.type == "cpu";
  s->elementwise_chunk = s->info.type == "cpu" ? 16 : 1;
  if (s->info.type == "cpu") s->split_group = 256;
  s->reduction_local = 64;
  while (s->reduction_local > s->info.max_work_group_size) s->reduction_local /= 2;
  s->norm_local = s->info.type == "cpu" ? 64 : 256;
  while (s->norm_local > s->info.max_work_group_size) s->norm_local /= 2;
  const std::string options =
      "-DTILE=" + std::to_string(s->gemm_tile) + " -DWPT=" + std::to_string(s->gemm_wpt) +
      " -DLOCAL_SIZE=" + std::to_string(s->reduction_local) +
      " -DNORM_LOCAL=" + std::to_string(s->norm_local) +
      " -DCHUNK=" + std::to_string(s->elementwise_chunk) +
      " -DSPLIT_GROUP=" + std::to_string(s->split_group) +
      " -DSPLIT_UNROLL=" + std::to_string(s->split_unroll) + (half_storage ? " -DSTORE_HALF" : "");
  s->element_bytes = half_storage ? 2 : 4;
  s->program = BuildProgram(s->info, s->context.get(), KernelSource(), options);
  // 1-D kernels: a multiple of what the device runs in lockstep, up to 256.
  KernelHandle probe(s->NewKernel("unary"));
  size_t multiple = 0, most = 0;
  clGetKernelWorkGroupInfo(probe.get(), s->info.device,
                           CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof multiple, &multiple,
                           nullptr);
  clGetKernelWorkGroupInfo(probe.get(), s->info.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most,
                           &most, nullptr);
  if (multiple > 0 && most >= multiple) {
    size_t local = multiple;
    while (local * 2 <= 256 && local * 2 <= most) local *= 2;
    s->elementwise_local = local;
  }
  return s;
}

}  // namespace

const DeviceSession& SessionFor(const std::string& spec, bool half_storage) {
  static std::mutex mutex;
  static std::map<std::pair<std::string, bool>, std::unique_ptr<DeviceSession>> sessions;
  const std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<DeviceSession>& s = sessions[{spec, half_storage}];
  if (!s) s = Open(spec, half_storage);
  return *s;
}

}  // namespace ntpb::opencl
