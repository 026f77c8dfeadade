// `ntpbench compare A B [C...]`: runs side by side, whatever produced them (the CLI or a suite;
// any backend, precision, batch or machine). Benchmarks pair by name (or, when each file has
// one left, with each other); within a pair the network, the markers and the steps align by
// name, else by op and shape (step alignment), and each row gets its time change, its
// significance over the repetitions (the gate's Mann-Whitney U test) and a verdict.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ntpbench/run_file.h"

namespace ntpb {

struct RunCompareOptions {
  double alpha = 0.05;      // significance level of the Mann-Whitney U test
  double threshold = 0.05;  // relative time change below which a row is "same"
  int top = 0;              // only the N step rows whose time changed most (0: all)
};

// One run's side of a row.
struct SideValue {
  bool present = false;
  double ms = 0;                // median time per iteration
  std::vector<double> samples;  // per repetition, where there were repetitions
  StepCost cost;                // analytic (steps and network)
  std::string op, shape, kernel;
};

// A row against the reference (the first run).
struct RowJudgement {
  double change = 0;       // relative time change
  double p_value = -1;     // -1: no test (fewer than 2 repetitions on a side)
  std::string verdict;     // faster, slower, same, noise, faster?, slower?, only A, only B
  std::string note;        // FLOPs, bytes, params, shape or kernel that differ
  std::string brief_note;  // the same, short (ratios, the other's kernel): the text table's
};

struct RunComparisonRow {
  enum class Kind { kNetwork, kMarker, kStep };
  Kind kind = Kind::kStep;
  std::string name;              // the reference's name; the other's after " / " when they differ
  std::string aligned;           // how: "name", "op/shape", "" for network and markers
  std::vector<SideValue> sides;  // one per run
  std::vector<RowJudgement> judgements;  // one per run after the first
};

struct RunComparison {
  std::vector<std::string> runs;  // "A: file.json  name  (machine, threads)" per run
  std::vector<RunComparisonRow> rows;
  std::vector<std::string> notes;  // benchmarks that pair with nothing, and why
};

// Every pairing of the files' benchmarks with the first file's. Throws ntpb::Error when no
// benchmark of a later file pairs with any of the first's.
std::vector<RunComparison> CompareRuns(const std::vector<RunResults>& files,
                                       const RunCompareOptions& options);

// As a text table (120 columns), Markdown or CSV.
enum class CompareFormat { kText, kMarkdown, kCsv };
std::string FormatRunComparisons(const std::vector<RunComparison>& comparisons,
                                 CompareFormat format, const RunCompareOptions& options);

}  // namespace ntpb
