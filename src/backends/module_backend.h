// A backend built as a shared module (libntpbench_NAME.so) and loaded the first time a run needs
// it, not at every start: linking a framework into the program would run its static
// initialisers at each start (libtorch: ~2 s, `ntpbench --version` included).
//
// The module exports, with C linkage:
//   const char* ntpbench_module_build();              // NTPBENCH_MODULE_BUILD of its build
//   const ntpb::Backend* ntpbench_module_backend();   // the backend, alive until exit
// and resolves ntpbench's own symbols from the program that loads it (ntpbench::ntpbench
// exports them). A module from another build of ntpbench is refused: their classes may differ.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ntpbench/backend.h"

namespace ntpb {

struct BackendModule {
  std::string name;  // the backend's name: "torch"
  // Its options, known without loading it (--help lists them; benchmark names carry them).
  std::vector<BackendOption> options;
  bool runs_every_op = true;  // Backend::RunsEveryOp
  // A module found in a module folder that ntpbench does not list (DiscoveredBackendModules):
  // its options and RunsEveryOp are the module's own, asked of it (which loads it).
  bool discovered = false;
};

// A backend standing for the module of `module.name`: its name and options at once, everything
// else from the module, loaded on first use. Where no module of this build is found, it stays in
// the list of backends and refuses every run with the reason (Supports, Compile).
std::unique_ptr<Backend> MakeModuleBackend(BackendModule module);

// The folders searched for libntpbench_NAME.so, in order: $NTPB_BACKEND_MODULE_PATH
// (colon-separated), the build folder's modules/, the install prefix's lib/ntpbench, and
// lib/ntpbench beside the program's bin/ (an installed tree moved elsewhere).
std::vector<std::string> BackendModuleFolders();

// The names of the modules in BackendModuleFolders() (libntpbench_NAME.so, NAME lowercase
// letters, digits and '_'), first folder first, each once: a backend built as a module outside
// ntpbench's own list is found by its file alone, with no edit elsewhere.
std::vector<std::string> DiscoveredBackendModules();

}  // namespace ntpb
