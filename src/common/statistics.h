// Mann-Whitney U test, as Google Benchmark's compare.py uses to judge repetitions (the gate,
// `ntpbench compare`), the median and percentiles.
#pragma once

#include <vector>

namespace ntpb {

struct MannWhitneyResult {
  double u = 0;        // U statistic of the first sample
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (no ties, small samples) or normal approximation
  // The smallest two-sided p-value these sample sizes can produce at all: when it is above the
  // significance level, no verdict is possible ("inconclusive").
  double min_p_value = 1;
};

// Two-sided test of whether `a` and `b` come from the same distribution. Exact for samples of
// at most 20 each without ties; otherwise the normal approximation with tie and continuity
// correction (as scipy.stats.mannwhitneyu). Samples smaller than 1 give p = 1.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

double Median(std::vector<double> values);

// The p-th percentile (0..100) by nearest rank: the smallest value with at least p% of the values
// at or below it (as MLPerf LoadGen reports latency percentiles); 0 for no values.
double Percentile(std::vector<double> values, double p);

// Median absolute percentage deviation from the median (nanobench's MdAPE): the typical spread
// of repeated measurements, as a fraction; robust to a few outliers, unlike the standard
// deviation. 0 for fewer than two values or a zero median.
double Mdape(const std::vector<double>& values);

}  // namespace ntpb
