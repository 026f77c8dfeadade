// Helpers shared by the tests: building topologies in code, paths to shipped files.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/analysis.h"
#include "ntpbench/backend.h"
#include "ntpbench/machine_peaks.h"
#include "ntpbench/resolve.h"
#include "ntpbench/results.h"
#include "ntpbench/topology.h"

namespace ntpb::testing {

// A topology with one layer `op` named "layer", graph inputs x0, x1, ... of the given shapes
// and output "y".
Topology SingleLayer(const std::string& op, const std::vector<Shape>& inputs,
                     const nlohmann::json& attrs);

// This test process's own folder (made under GoogleTest's TempDir() on first use, removed at
// exit): tests write only there, so parallel tests and other users' files never meet.
std::string TestDir();
// A path under TestDir() that is never created: a missing file or folder that no machine can
// happen to have (unlike /nonexistent).
std::string MissingPath(const std::string& name);

// `measured` (decoded counters: times by step name) as a run of `t` writes it: a step per
// layer in execution order (fused as `measured`'s step says), each described by the runner's
// own DescribeStep, the backend's inlays before the layer they feed, markers placed on steps,
// the network's params and activation bytes. What the report tests render from.
RunMeasurement DescribedLikeARun(const ResolvedTopology& t, const TopologyAnalysis& a,
                                 RunMeasurement measured, Precision precision = Precision::kF32,
                                 const MachinePeaks* peaks = nullptr);

// Path of a file in the source tree (NTPBENCH_SOURCE_DIR/relative).
std::string SourcePath(const std::string& relative);

// Largest |a - b| / max(1, |b|) over the elements; sizes must match.
double MaxRelativeError(const std::vector<float>& a, const std::vector<float>& b);

// Whether `backend` runs `precision` on this machine (oneDNN 2.6 has no bf16 kernels below
// AVX-512), asked of the backend itself on a shipped topology it has every op of: tests of a
// precision the machine lacks skip with this reason, the one a benchmark reports.
// A backend this build left out (NTPBENCH_WITH_ONEDNN=OFF) is unsupported with that reason.
Support BackendSupportFor(const std::string& backend, Precision precision);
#define SKIP_UNLESS_BACKEND_RUNS(backend, precision)                                             \
  if (const ::ntpb::Support s = ::ntpb::testing::BackendSupportFor(backend, precision); !s.ok) { \
    GTEST_SKIP() << s.reason;                                                                    \
  }

// Why a counter source or PAPI event cannot be counted here ("" when it can): a build without
// PAPI has no sde source and no PAPI events.
std::string CounterUnavailableReason(const std::string& counter);
#define SKIP_UNLESS_COUNTER(counter)                                                              \
  if (const std::string why = ::ntpb::testing::CounterUnavailableReason(counter); !why.empty()) { \
    GTEST_SKIP() << counter << ": " << why;                                                       \
  }

}  // namespace ntpb::testing
