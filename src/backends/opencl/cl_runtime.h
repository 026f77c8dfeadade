// The OpenCL runtime as ntpbench uses it: the devices every platform offers, choosing one from
// a "PLATFORM:DEVICE" spec, and small owning handles for the C API's objects. Errors become
// ntpb::Error with the call and the OpenCL error's name.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ntpb::opencl {

// Throws ntpb::Error("opencl", what: CL_ERROR_NAME) when status is not CL_SUCCESS.
void Check(cl_int status, const char* what);
const char* ErrorName(cl_int status);

struct DeviceInfo {
  int platform_index = 0, device_index = 0;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name, device_name, vendor, driver_version, opencl_version, type;
  int compute_units = 0;
  int64_t global_memory_bytes = 0, max_allocation_bytes = 0, local_memory_bytes = 0;
  int64_t max_work_group_size = 0;
  bool fp16 = false, fp64 = false, int8_dot = false;
  // "opencl:0:1 NVIDIA CUDA / NVIDIA H100": what a run's context records.
  std::string Spec() const;
  std::string Description() const;
};

// Every device of every platform the ICD loader finds; empty (never an error) when there is no
// OpenCL runtime, with the reason in *why.
std::vector<DeviceInfo> ListDevices(std::string* why = nullptr);

// "" or "opencl" picks the first device; "opencl:P:D" or "P:D" picks by index or by a
// case-insensitive substring of the platform and device names ("opencl:pocl:epyc",
// "opencl:nvidia"). Throws ntpb::Error naming the option and listing the devices when none or
// several match.
DeviceInfo SelectDevice(const std::string& spec);

// Owning handles: release on destruction, move only.
template <typename T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T value) : value_(value) {}
  Handle(Handle&& other) noexcept : value_(std::exchange(other.value_, nullptr)) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      Reset();
      value_ = std::exchange(other.value_, nullptr);
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { Reset(); }
  T get() const { return value_; }
  void Reset() {
    if (value_) Release(value_);
    value_ = nullptr;
  }

 private:
  T value_ = nullptr;
};

using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using KernelHandle = Handle<cl_kernel, clReleaseKernel>;
using Memory = Handle<cl_mem, clReleaseMemObject>;
using Event = Handle<cl_event, clReleaseEvent>;

}  // namespace ntpb::opencl
