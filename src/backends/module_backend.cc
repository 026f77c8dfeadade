#include "src/backends/module_backend.h"

#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <sstream>

#include "ntpbench/error.h"

// Set by CMake on this file alone (a new build id recompiles nothing else).
#ifndef NTPBENCH_MODULE_BUILD
#define NTPBENCH_MODULE_BUILD "unknown"
#endif

namespace ntpb {
namespace {

bool IsFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string ProgramFolder() {
  char buffer[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof(buffer) - 1);
  if (n <= 0) return "";
  const std::string path(buffer, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

class ModuleBackend : public Backend {
 public:
  explicit ModuleBackend(BackendModule module) : module_(std::move(module)) {}

  std::string name() const override { return module_.name; }
  std::vector<BackendOption> Options() const override {
    if (!module_.discovered) return module_.options;
    const Backend* b = Loaded();
    return b ? b->Options() : std::vector<BackendOption>{};
  }
  bool RunsEveryOp() const override {
    if (!module_.discovered) return module_.runs_every_op;
    const Backend* b = Loaded();
    return b ? b->RunsEveryOp() : true;
  }
  // Loading the module is what starts it: its version is asked only where a run uses it.
  bool StartsADriver() const override { return true; }

  std::string version() const override {
    const Backend* b = Loaded();
    return b ? b->version() : "not loaded: " + problem_;
  }
  Support Supports(const ResolvedTopology& topology, const RunConfig& config) const override {
    const Backend* b = Loaded();
    return b ? b->Supports(topology, config) : Support{false, problem_};
  }
  bool MemoryPlanIsPortable() const override {
    const Backend* b = Loaded();
    return b ? b->MemoryPlanIsPortable() : true;
  }
  std::string PrecisionPath(Precision precision) const override {
    const Backend* b = Loaded();
    return b ? b->PrecisionPath(precision) : "";
  }
  std::vector<PlannedStep> PlanSteps(const ResolvedTopology& topology,
                                     const RunConfig& config) const override {
    const Backend* b = Loaded();
    return b ? b->PlanSteps(topology, config) : Backend::PlanSteps(topology, config);
  }
  std::unique_ptr<Executable> Compile(const ResolvedTopology& topology,
                                      const RunConfig& config) const override {
    const Backend* b = Loaded();
    if (!b) throw Error(topology.file, "", "backend " + module_.name, problem_);
    return b->Compile(topology, config);
  }

 private:
  const Backend* Loaded() const {
    std::call_once(once_, [this] { Load(); });
    return loaded_;
  }

  // The first module of this build found in BackendModuleFolders(); else problem_ says what was
  // found and why it was not taken. The module is never unloaded: its backend lives until exit.
  void Load() const {
    const std::string file = "libntpbench_" + module_.name + ".so";
    std::string found;
    const std::vector<std::string> folders = BackendModuleFolders();
    for (const std::string& folder : folders) {
      const std::string path = folder + "/" + file;
      if (!IsFile(path)) continue;
      void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!handle) {
        const char* why = dlerror();
        found += "; " + path + " does not load (" + (why ? why : "dlopen failed") + ")";
        continue;
      }
      using BuildFn = const char* (*)();
      using BackendFn = const Backend* (*)();
      auto build = reinterpret_cast<BuildFn>(dlsym(handle, "ntpbench_module_build"));
      auto backend = reinterpret_cast<BackendFn>(dlsym(handle, "ntpbench_module_backend"));
      if (!build || !backend) {
        found += "; " + path + " is not an ntpbench backend module";
      } else if (std::string(build()) != NTPBENCH_MODULE_BUILD) {
        found += "; " + path + " is from another build of ntpbench (" + build() + ", this is " +
                 NTPBENCH_MODULE_BUILD + ")";
      } else if ((loaded_ = backend()) != nullptr) {
        return;
      }
      dlclose(handle);
    }
    std::string looked;
    for (const std::string& f : folders) looked += (looked.empty() ? "" : ", ") + f;
    problem_ = "the " + module_.name + " backend is built as a module, " + file + ", and none of " +
               "this build was found" + found + " (looked in " + looked +
               "; `cmake --build BUILD --target ntpbench_" + module_.name +
               "` builds it, NTPB_BACKEND_MODULE_PATH adds folders)";
  }

  BackendModule module_;
  mutable std::once_flag once_;
  mutable const Backend* loaded_ = nullptr;
  mutable std::string problem_;
};

}  // namespace

std::unique_ptr<Backend> MakeModuleBackend(BackendModule module) {
  return std::make_unique<ModuleBackend>(std::move(module));
}

std::vector<std::string> DiscoveredBackendModules() {
  std::vector<std::string> names;
  const std::string prefix = "libntpbench_", suffix = ".so";
  for (const std::string& folder : BackendModuleFolders()) {
    DIR* dir = opendir(folder.c_str());
    if (!dir) continue;
    std::vector<std::string> here;
    while (const dirent* e = readdir(dir)) {
      const std::string file = e->d_name;
      if (file.size() <= prefix.size() + suffix.size() || file.rfind(prefix, 0) != 0 ||
          file.compare(file.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const std::string name =
          file.substr(prefix.size(), file.size() - prefix.size() - suffix.size());
      const bool named = std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
      if (named && IsFile(folder + "/" + file)) here.push_back(name);
    }
    closedir(dir);
    std::sort(here.begin(), here.end());  // readdir's order is the file system's
    for (const std::string& name : here) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

std::vector<std::string> BackendModuleFolders() {
  std::vector<std::string> folders;
  if (const char* env = std::getenv("NTPB_BACKEND_MODULE_PATH")) {
    std::stringstream list(env);
    for (std::string f; std::getline(list, f, ':');) {
      if (!f.empty()) folders.push_back(f);
    }
  }
#ifdef NTPBENCH_MODULE_BUILD_DIR
  folders.push_back(NTPBENCH_MODULE_BUILD_DIR);
#endif
#ifdef NTPBENCH_MODULE_INSTALL_DIR
  folders.push_back(NTPBENCH_MODULE_INSTALL_DIR);
#endif
#ifdef NTPBENCH_INSTALL_LIBDIR
  const std::string program = ProgramFolder();
  if (!program.empty()) folders.push_back(program + "/../" NTPBENCH_INSTALL_LIBDIR "/ntpbench");
#endif
  return folders;
}

}  // namespace ntpb
