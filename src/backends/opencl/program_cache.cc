#include "src/backends/opencl/program_cache.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

#include "ntpbench/error.h"
#include "src/backends/opencl/program_cache_entry.h"
#include "src/common/file_io.h"

namespace ntpb::opencl {
namespace {

constexpr size_t kMaxEntryBytes = size_t{512} << 20;

std::string CacheFile(const DeviceInfo& d, const std::string& source, const std::string& options) {
  if (const char* off = std::getenv("NTPB_OPENCL_CACHE"); off && std::string(off) == "off") {
    return "";
  }
  uint64_t h = Fnv1a(d.platform_name);
  for (const std::string* part :
       {&d.device_name, &d.driver_version, &d.opencl_version, &source, &options}) {
    h = Fnv1a("\x1f" + *part, h);
  }
  char name[32];
  std::snprintf(name, sizeof name, "%016llx.bin", static_cast<unsigned long long>(h));
  return CacheDirectory() + "/opencl/" + name;
}

std::string BuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
  std::string log(size, '\0');
  if (size) clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
  if (log.size() > 2000) log = log.substr(0, 2000) + "...";
  return log;
}

// The binary of the entry at `file`, or "" where there is none (not a regular file, too large,
// another format, damaged).
std::string BinaryOfEntry(const std::string& file) {
  try {
    return BinaryOfCacheEntry(ReadTextFile(file, kMaxEntryBytes));
  } catch (const Error&) {
    return "";
  }
}

// A program from the disk entry, or null when there is none or the driver refuses it.
cl_program FromBinary(const DeviceInfo& d, cl_context context, const std::string& file,
                      const std::string& options) {
  const std::string binary = BinaryOfEntry(file);
  if (binary.empty()) return nullptr;
  const size_t size = binary.size();
  const auto* bytes = reinterpret_cast<const unsigned char*>(binary.data());
  cl_int status = CL_SUCCESS, binary_status = CL_SUCCESS;
  cl_program program =
      clCreateProgramWithBinary(context, 1, &d.device, &size, &bytes, &binary_status, &status);
  if (status != CL_SUCCESS || binary_status != CL_SUCCESS) {
    if (program) clReleaseProgram(program);
    return nullptr;
  }
  if (clBuildProgram(program, 1, &d.device, options.c_str(), nullptr, nullptr) != CL_SUCCESS) {
    clReleaseProgram(program);
    return nullptr;
  }
  return program;
}

void SaveBinary(cl_program program, const std::string& file) {
  size_t size = 0;
  if (clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr) !=
          CL_SUCCESS ||
      size == 0) {
    return;
  }
  std::string binary(size, '\0');
  unsigned char* out = reinterpret_cast<unsigned char*>(binary.data());
  if (clGetProgramInfo(program, CL_PROGRAM_BINARIES, sizeof out, &out, nullptr) != CL_SUCCESS) {
    return;
  }
  std::error_code ignored;  // a folder that cannot be made fails at the write, caught below
  std::filesystem::create_directories(std::filesystem::path(file).parent_path(), ignored);
  // An entry that is no regular file (a FIFO, a link to a device) is no entry of ours: written
  // in place, as WriteFileAtomically treats special files, a FIFO would block the run.
  if (IsSpecialFile(file) || std::filesystem::is_symlink(file, ignored)) {
    std::filesystem::remove(file, ignored);
  }
  try {
    WriteFileAtomically(file, CacheEntry(binary));  // concurrent builders write the same bytes
  } catch (const Error&) {
    // A read-only cache folder costs the next process a build, nothing more.
  }
}

}  // namespace

BuiltProgram BuildProgram(const DeviceInfo& device, cl_context context, const std::string& source,
                          const std::string& options) {
  static std::mutex mutex;
  static std::map<std::tuple<cl_context, uint64_t, std::string>, cl_program> built;
  const std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_tuple(context, Fnv1a(source), options);
  const std::string file = CacheFile(device, source, options);
  if (auto it = built.find(key); it != built.end()) {
    return {it->second, ProgramOrigin::kMemory, file};
  }
  if (!file.empty()) {
    if (cl_program p = FromBinary(device, context, file, options)) {
      built[key] = p;
      return {p, ProgramOrigin::kDisk, file};
    }
  }
  const char* text = source.c_str();
  const size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context, 1, &text, &length, &status);
  Check(status, "clCreateProgramWithSource");
  status = clBuildProgram(program, 1, &device.device, options.c_str(), nullptr, nullptr);
  if (status != CL_SUCCESS) {
    const std::string log = BuildLog(program, device.device);
    clReleaseProgram(program);
    throw Error("", "", "opencl",
                "building the kernels for " + device.Description() + " failed (" +
                    ErrorName(status) + "): " + log);
  }
  if (!file.empty()) SaveBinary(program, file);
  built[key] = program;
  return {program, ProgramOrigin::kSource, file};
}

}  // namespace ntpb::opencl
