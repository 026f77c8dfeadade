#include "src/common/statistics.h"

#include <algorithm>
#include <cmath>

namespace ntpb {
namespace {

// Number of ways to get each U for sample sizes n1, n2 (no ties): the exact null distribution.
std::vector<double> UCounts(int n1, int n2) {
  // f[i][j][u]: arrangements of i items of sample 1 and j of sample 2 with statistic u.
  const int max_u = n1 * n2;
  std::vector<std::vector<std::vector<double>>> f(
      n1 + 1, std::vector<std::vector<double>>(n2 + 1, std::vector<double>(max_u + 1, 0.0)));
  for (int i = 0; i <= n1; ++i) {
    for (int j = 0; j <= n2; ++j) {
      if (i == 0 || j == 0) {
        f[i][j][0] = 1;
        continue;
      }
      for (int u = 0; u <= i * j; ++u) {
        // The largest item belongs to sample 1 (it beats all j of sample 2) or to sample 2.
        f[i][j][u] = (u >= j ? f[i - 1][j][u - j] : 0.0) + f[i][j - 1][u];
      }
    }
  }
  return f[n1][n2];
}

double TwoSidedExact(const std::vector<double>& counts, double u) {
  double total = 0;
  for (double c : counts) total += c;
  const double max_u = static_cast<double>(counts.size() - 1);
  const double lo = std::min(u, max_u - u);
  double tail = 0;
  for (int k = 0; k <= static_cast<int>(std::floor(lo + 1e-9)); ++k) tail += counts[k];
  return std::min(1.0, 2 * tail / total);
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult r;
  const int n1 = static_cast<int>(a.size()), n2 = static_cast<int>(b.size());
  if (n1 < 1 || n2 < 1) return r;
  // Ranks of the pooled sample, ties sharing their average rank.
  std::vector<std::pair<double, int>> pooled;
  for (double x : a) pooled.push_back({x, 0});
  for (double x : b) pooled.push_back({x, 1});
  std::sort(pooled.begin(), pooled.end());
  const int n = n1 + n2;
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (int i = 0; i < n;) {
    int j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    const double rank = 0.5 * (i + j) + 1;  // ranks are 1-based
    const double t = j - i + 1;
    if (t > 1) {
      ties = true;
      tie_term += t * t * t - t;
    }
    for (int k = i; k <= j; ++k) {
      if (pooled[k].second == 0) rank_sum_a += rank;
    }
    i = j + 1;
  }
  // In double: n1 * n2 overflows an int from about 46,341 repetitions each, and turned a clear
  // regression into "inconclusive".
  const double d1 = n1, d2 = n2, dn = n;
  r.u = rank_sum_a - d1 * (d1 + 1) / 2.0;
  const double mean = d1 * d2 / 2.0;
  const bool exact = !ties && n1 <= 20 && n2 <= 20;
  if (n1 <= 20 && n2 <= 20) {
    const std::vector<double> counts = UCounts(n1, n2);
    r.min_p_value = TwoSidedExact(counts, 0);
    if (exact) {
      r.exact = true;
      r.p_value = TwoSidedExact(counts, r.u);
      return r;
    }
  }
  const double var = d1 * d2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (var <= 0) {  // every value equal: no evidence of a difference
    r.p_value = 1;
    return r;
  }
  const double z = std::max(0.0, std::abs(r.u - mean) - 0.5) / std::sqrt(var);
  r.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));
  if (n1 > 20 || n2 > 20) {
    const double z_max = std::max(0.0, mean - 0.5) / std::sqrt(d1 * d2 * (dn + 1) / 12.0);
    r.min_p_value = std::erfc(z_max / std::sqrt(2.0));
  }
  return r;
}

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  const auto n = static_cast<double>(values.size());
  const auto rank = static_cast<size_t>(std::max(1.0, std::ceil(p / 100.0 * n))) - 1;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(rank),
                   values.end());
  return values[rank];
}

double Mdape(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  const double median = Median(values);
  if (median == 0) return 0;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::abs(v - median) / std::abs(median));
  return Median(std::move(deviations));
}

}  // namespace ntpb
