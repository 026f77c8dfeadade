#include "src/backends/opencl/cl_runtime.h"

#include <algorithm>
#include <cctype>

#include "ntpbench/error.h"

namespace ntpb::opencl {

const char* ErrorName(cl_int status) {
  switch (status) {
    case CL_SUCCESS:
      return "CL_SUCCESS";
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE:
      return "CL_DEVICE_NOT_AVAILABLE";
    case CL_COMPILER_NOT_AVAILABLE:
      return "CL_COMPILER_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_PROFILING_INFO_NOT_AVAILABLE:
      return "CL_PROFILING_INFO_NOT_AVAILABLE";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE:
      return "CL_INVALID_VALUE";
    case CL_INVALID_DEVICE:
      return "CL_INVALID_DEVICE";
    case CL_INVALID_BINARY:
      return "CL_INVALID_BINARY";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_INDEX:
      return "CL_INVALID_ARG_INDEX";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE:
      return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE:
      return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_INVALID_MEM_OBJECT:
      return "CL_INVALID_MEM_OBJECT";
    case CL_INVALID_HOST_PTR:
      return "CL_INVALID_HOST_PTR";
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";  // cl_ext.h
    default:
      return "an OpenCL error";
  }
}

void Check(cl_int status, const char* what) {
  if (status == CL_SUCCESS) return;
  throw Error(
      "", "", "opencl",
      std::string(what) + " failed: " + ErrorName(status) + " (" + std::to_string(status) + ")");
}

namespace {

std::string PlatformString(cl_platform_id p, cl_platform_info what) {
  size_t size = 0;
  if (clGetPlatformInfo(p, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  clGetPlatformInfo(p, what, size, s.data(), nullptr);
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

std::string DeviceString(cl_device_id d, cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  clGetDeviceInfo(d, what, size, s.data(), nullptr);
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  // Drivers pad some names with spaces.
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

template <typename T>
T DeviceValue(cl_device_id d, cl_device_info what) {
  T value{};
  clGetDeviceInfo(d, what, sizeof(T), &value, nullptr);
  return value;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Matches(const std::string& part, int index, const std::string& name) {
  if (part.empty()) return true;
  if (std::all_of(part.begin(), part.end(), [](char c) { return std::isdigit(c); })) {
    // More digits than an int holds names no device (stoi would throw out_of_range).
    return part.size() <= 9 && std::stoi(part) == index;
  }
  return Lower(name).find(Lower(part)) != std::string::npos;
}

std::string DeviceList(const std::vector<DeviceInfo>& devices) {
  std::string list;
  for (const DeviceInfo& d : devices) list += (list.empty() ? "" : "; ") + d.Spec();
  return list.empty() ? "none" : list;
}

}  // namespace

std::string DeviceInfo::Spec() const {
  return "opencl:" + std::to_string(platform_index) + ":" + std::to_string(device_index) + " " +
         platform_name + " / " + device_name;
}

std::string DeviceInfo::Description() const {
  return device_name + " (" + platform_name + ", driver " + driver_version + ", " + opencl_version +
         ")";
}

std::vector<DeviceInfo> ListDevices(std::string* why) {
  std::vector<DeviceInfo> devices;
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status != CL_SUCCESS || count == 0) {
    if (why) {
      *why = "no OpenCL platform (clGetPlatformIDs: " + std::string(ErrorName(status)) +
             "; install an OpenCL driver, e.g. Debian's pocl-opencl-icd)";
    }
    return devices;
  }
  std::vector<cl_platform_id> platforms(count);
  clGetPlatformIDs(count, platforms.data(), nullptr);
  for (cl_uint p = 0; p < count; ++p) {
    cl_uint n = 0;
    if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, nullptr, &n) != CL_SUCCESS) continue;
    std::vector<cl_device_id> ids(n);
    clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, n, ids.data(), nullptr);
    for (cl_uint i = 0; i < n; ++i) {
      DeviceInfo d;
      d.platform_index = static_cast<int>(p);
      d.device_index = static_cast<int>(i);
      d.platform = platforms[p];
      d.device = ids[i];
      d.platform_name = PlatformString(platforms[p], CL_PLATFORM_NAME);
      d.device_name = DeviceString(ids[i], CL_DEVICE_NAME);
      d.vendor = DeviceString(ids[i], CL_DEVICE_VENDOR);
      d.driver_version = DeviceString(ids[i], CL_DRIVER_VERSION);
      d.opencl_version = DeviceString(ids[i], CL_DEVICE_VERSION);
      const auto type = DeviceValue<cl_device_type>(ids[i], CL_DEVICE_TYPE);
      d.type = (type & CL_DEVICE_TYPE_GPU)           ? "gpu"
               : (type & CL_DEVICE_TYPE_CPU)         ? "cpu"
               : (type & CL_DEVICE_TYPE_ACCELERATOR) ? "accelerator"
                                                     : "other";
      d.compute_units = static_cast<int>(DeviceValue<cl_uint>(ids[i], CL_DEVICE_MAX_COMPUTE_UNITS));
      d.global_memory_bytes =
          static_cast<int64_t>(DeviceValue<cl_ulong>(ids[i], CL_DEVICE_GLOBAL_MEM_SIZE));
      d.max_allocation_bytes =
          static_cast<int64_t>(DeviceValue<cl_ulong>(ids[i], CL_DEVICE_MAX_MEM_ALLOC_SIZE));
      d.local_memory_bytes =
          static_cast<int64_t>(DeviceValue<cl_ulong>(ids[i], CL_DEVICE_LOCAL_MEM_SIZE));
      d.max_work_group_size =
          static_cast<int64_t>(DeviceValue<size_t>(ids[i], CL_DEVICE_MAX_WORK_GROUP_SIZE));
      const std::string ext = " " + DeviceString(ids[i], CL_DEVICE_EXTENSIONS) + " ";
      d.fp16 = ext.find(" cl_khr_fp16 ") != std::string::npos;
      d.fp64 = ext.find(" cl_khr_fp64 ") != std::string::npos;
      d.int8_dot = ext.find(" cl_khr_integer_dot_product ") != std::string::npos ||
                   ext.find(" cl_arm_integer_dot_product_int8 ") != std::string::npos ||
                   ext.find(" cl_intel_subgroups_char ") != std::string::npos;
      devices.push_back(d);
    }
  }
  if (devices.empty() && why) *why = "the OpenCL platforms offer no device";
  return devices;
}

DeviceInfo SelectDevice(const std::string& spec) {
  std::string why;
  const std::vector<DeviceInfo> devices = ListDevices(&why);
  if (devices.empty()) throw Error("", "", "device", why);
  std::string rest = spec;
  if (rest.rfind("opencl", 0) == 0) rest = rest.substr(6);
  if (!rest.empty() && rest[0] == ':') rest = rest.substr(1);
  const size_t colon = rest.find(':');
  const std::string platform = rest.substr(0, colon);
  const std::string device = colon == std::string::npos ? "" : rest.substr(colon + 1);
  std::vector<DeviceInfo> matches;
  for (const DeviceInfo& d : devices) {
    if (Matches(platform, d.platform_index, d.platform_name) &&
        Matches(device, d.device_index, d.device_name)) {
      matches.push_back(d);
    }
  }
  if (matches.empty()) {
    throw Error("", "", "device",
                "no OpenCL device matches '" + spec +
                    "' (expected opencl:PLATFORM:DEVICE, each an "
                    "index or part of a name; devices: " +
                    DeviceList(devices) + ")");
  }
  // Several matches of an explicit name are ambiguous; an empty spec means the first device.
  if (matches.size() > 1 && !(platform.empty() && device.empty())) {
    throw Error("", "", "device",
                "'" + spec + "' matches " + std::to_string(matches.size()) + " OpenCL devices (" +
                    DeviceList(matches) + "); name one");
  }
  return matches.front();
}

}  // namespace ntpb::opencl
