// The backends ntpbench knows: those of the build's list (CMakeLists.txt's
// ntpbench_builtin_backend and ntpbench_backend_module calls write it), modules found by their
// file in a module folder, and those registered at run time. A backend the build left out
// (NTPBENCH_WITH_ONEDNN=OFF, ...) has an instance of null and is said to be left out.
#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/machine.h"
#include "src/backends/module_backend.h"
#include "src/common/nearest_name.h"

namespace ntpb {

// Each backend the build has defines its instance function in its folder.
#define NTPB_BUILT_BACKEND(name, instance) const Backend* instance();
#define NTPB_LEFT_OUT_BACKEND(name, option)
#include "src/backends/builtin_backends.inc"
#undef NTPB_BUILT_BACKEND
#undef NTPB_LEFT_OUT_BACKEND

namespace {

struct Entry {
  const char* name;
  const Backend* instance;  // null: not part of this build
  const char* option;       // the CMake option that builds it, where the build left it out
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
#define NTPB_BUILT_BACKEND(name, instance) {#name, instance(), ""},
#define NTPB_LEFT_OUT_BACKEND(name, option) {#name, nullptr, #option},
#include "src/backends/builtin_backends.inc"
#undef NTPB_BUILT_BACKEND
#undef NTPB_LEFT_OUT_BACKEND
  };
  return entries;
}

// Backend modules in the module folders that the list above does not name (a folder of sources
// and one ntpbench_backend_module() call in CMake make one): found by their files, once.
const std::vector<std::unique_ptr<Backend>>& Discovered() {
  static const std::vector<std::unique_ptr<Backend>> discovered = [] {
    std::vector<std::unique_ptr<Backend>> found;
    for (const std::string& name : DiscoveredBackendModules()) {
      const bool listed = std::any_of(Entries().begin(), Entries().end(),
                                      [&](const Entry& e) { return name == e.name; });
      if (!listed) found.push_back(MakeModuleBackend({name, {}, true, true}));
    }
    return found;
  }();
  return discovered;
}

// Backends registered from outside (RegisterBackend), after the built-in ones.
std::vector<std::unique_ptr<Backend>>& Registered() {
  static std::vector<std::unique_ptr<Backend>> registered;
  return registered;
}

std::vector<const Backend*> Builtin() {
  std::vector<const Backend*> backends;
  for (const Entry& e : Entries()) {
    if (e.instance) backends.push_back(e.instance);
  }
  for (const std::unique_ptr<Backend>& b : Discovered()) backends.push_back(b.get());
  for (const std::unique_ptr<Backend>& b : Registered()) backends.push_back(b.get());
  return backends;
}

}  // namespace

int EffectiveThreads(const RunConfig& config) {
  if (config.threads > 0) return config.threads;
  // The CPUs this process may use, not all online ones: under `taskset -c 0` one thread.
  return ThisMachine().cores;
}

void Executable::SetPositionShift(int64_t shift) {
  if (shift != 0) {
    throw Error("", "", "scenario",
                "this backend runs every inference at the positions the topology was resolved "
                "for: it cannot move a decoder's key/value cache position at run time");
  }
}

std::vector<PlannedStep> Backend::PlanSteps(const ResolvedTopology& topology,
                                            const RunConfig& config) const {
  (void)config;
  std::vector<PlannedStep> steps;
  for (size_t i = 0; i < topology.layers.size(); ++i) steps.push_back({static_cast<int>(i), 0, ""});
  return steps;
}

void RegisterBackend(std::unique_ptr<Backend> backend) {
  if (!backend) throw Error("", "", "backend", "RegisterBackend was given no backend");
  const std::string name = backend->name();
  const bool named = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return std::islower(static_cast<unsigned char>(c)) ||
           std::isdigit(static_cast<unsigned char>(c)) || c == '_';
  });
  if (!named) {
    throw Error("", "", "backend " + name,
                "a backend's name is lowercase letters, digits and '_' (it goes into benchmark "
                "names and --backend)");
  }
  bool taken = FindBackend(name) != nullptr;
  for (const Entry& e : Entries()) taken = taken || name == e.name;
  if (taken) throw Error("", "", "backend " + name, "a backend of that name exists already");
  Registered().push_back(std::move(backend));
}

const Backend* FindBackend(const std::string& name) {
  for (const Backend* b : Builtin()) {
    if (b->name() == name) return b;
  }
  return nullptr;
}

std::vector<std::string> BackendNames() {
  std::vector<std::string> names;
  for (const Backend* b : Builtin()) names.push_back(b->name());
  return names;
}

std::map<std::string, std::string> BackendOptionValues(const Backend& backend,
                                                       const RunConfig& config) {
  std::map<std::string, std::string> values;
  const std::vector<BackendOption> options = backend.Options();
  for (const auto& [name, value] : config.options) {
    const bool known = std::any_of(options.begin(), options.end(),
                                   [&](const BackendOption& o) { return o.name == name; });
    if (!known) {
      std::string list;
      for (const BackendOption& o : options) list += (list.empty() ? "" : ", ") + o.name;
      throw Error("", "", "backend option " + backend.name() + "." + name,
                  "the " + backend.name() + " backend has no such option (" +
                      (list.empty() ? "it has none" : "it has " + list) + ")");
    }
  }
  for (const BackendOption& o : options) {
    std::string value = o.values.front(), from = "backend option " + backend.name() + "." + o.name;
    if (auto it = config.options.find(o.name); it != config.options.end()) {
      value = it->second;
    } else if (const char* env = o.env.empty() ? nullptr : std::getenv(o.env.c_str());
               env && *env) {
      value = env;
      from = o.env;
    }
    if (std::find(o.values.begin(), o.values.end(), value) == o.values.end()) {
      std::string allowed;
      for (const std::string& v : o.values) allowed += (allowed.empty() ? "" : ", ") + v;
      throw Error("", "", from, "unknown value '" + value + "' (expected " + allowed + ")");
    }
    values[o.name] = value;
  }
  return values;
}

std::vector<std::string> NonDefaultOptionSegments(
    const Backend& backend, const std::map<std::string, std::string>& values) {
  std::vector<std::string> segments;
  for (const BackendOption& o : backend.Options()) {
    auto it = values.find(o.name);
    if (it != values.end() && it->second != o.values.front()) {
      segments.push_back(o.name + ":" + it->second);
    }
  }
  return segments;
}

std::string BackendUnavailableReason(const std::string& name) {
  if (FindBackend(name)) return "";
  for (const Entry& e : Entries()) {
    if (e.name == name) {
      return "the " + name + " backend is not part of this build (configure with -D" + e.option +
             "=ON, its library installed)";
    }
  }
  return "";
}

std::string UnknownBackendProblem(const std::string& name) {
  if (FindBackend(name) || !BackendUnavailableReason(name).empty()) return "";
  std::string known;
  for (const std::string& n : BackendNames()) known += (known.empty() ? "" : ", ") + n;
  // A near miss of a backend this build left out is still the likely intent.
  std::vector<std::string> names;
  for (const Entry& e : Entries()) names.push_back(e.name);
  return "unknown backend '" + name + "' (known: " + known + ")" + DidYouMean(name, names);
}

}  // namespace ntpb
