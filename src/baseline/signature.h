// The part of a suite's results that holds on every machine: per benchmark, its configuration
// and its exact signature (analytic FLOPs, parameters, weight and peak activation bytes; where the
// backend plans memory alike everywhere, its workspace, activation buffers and allocations per
// inference). Stored once per suite (<baseline dir>/any-machine/<suite>.json) and checked exactly
// on every machine, whether or not a latency baseline exists for its class.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ntpbench/baseline.h"

namespace ntpb {

struct SignatureEntry {
  // What the benchmark ran with (params, seed, backend options; threads only where set), as in
  // the run's JSON context; null when the run did not record it.
  nlohmann::json config;
  std::map<std::string, double> metrics;  // exact values
};

struct Signature {
  std::string file;
  std::string suite;
  std::string created;                               // UTC, ISO 8601
  std::map<std::string, SignatureEntry> benchmarks;  // by benchmark name
};

inline constexpr int kSignatureSchemaVersion = 1;

// The machine-independent part of a run: every benchmark that ran (calibration kernels aside).
Signature SignatureOf(const RunResults& run, const std::string& suite);

// <dir>/any-machine/<suite>.json
std::string SignaturePath(const std::string& baseline_dir, const std::string& suite);
// Throws ntpb::Error naming the file and field on corrupt, truncated or wrong-schema files.
Signature ReadSignature(const std::string& path);
Signature ParseSignature(const std::string& text, const std::string& file);
std::string SerializeSignature(const Signature& signature);
void WriteSignature(const Signature& signature, const std::string& path);  // atomic

// What changed from `before` to `after`, one line each ("+ name (new)", "  name: net.flops
// 1 -> 2"); empty when nothing did.
std::vector<std::string> SignatureDiff(const Signature& before, const Signature& after);

}  // namespace ntpb
