#include "src/report/step_alignment.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

namespace ntpb::report {

namespace {

// What a step computes, for the topology's layers: its layers as recorded, else its own name.
// An inlay matches only an inlay of the same name.
std::vector<std::string> Keys(const StepMeasure& s) {
  if (s.kind == StepKind::kInlay) return {"inlay:" + s.name};
  return s.layers.empty() ? std::vector<std::string>{s.name} : s.layers;
}

int Find(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// What identifies a run of steps where names differ: the first op, the last output shape.
std::string OpShape(const RunMeasurement& m, const std::vector<int>& steps) {
  const StepMeasure& first = m.steps[steps.front()];
  const StepMeasure& last = m.steps[steps.back()];
  const std::string op = first.kind == StepKind::kInlay ? first.inlay_op : first.op;
  return op + "|" + last.shape;
}

// Pairs of equal keys in order (i, j), and the unpaired as (i, -1) or (-1, j), in order. The
// longest common subsequence where its table is small; beyond kExactAlignmentCells a greedy walk:
// the common prefix and suffix, then each key paired with its next equal key within a window
// ahead on the other side (the nearer of the two), else left unpaired. Linear in memory either way.
std::vector<std::pair<int, int>> MatchInOrder(const std::vector<std::string>& x,
                                              const std::vector<std::string>& y) {
  const int n = static_cast<int>(x.size()), m = static_cast<int>(y.size());
  std::vector<std::pair<int, int>> out;
  out.reserve(n + m);
  if (static_cast<long long>(n) * m <= kExactAlignmentCells) {
    std::vector<int> lcs(static_cast<size_t>(n + 1) * (m + 1), 0);
    auto at = [&](int i, int j) -> int& { return lcs[static_cast<size_t>(i) * (m + 1) + j]; };
    for (int i = n; i-- > 0;) {
      for (int j = m; j-- > 0;) {
        at(i, j) = x[i] == y[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
      }
    }
    int i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && x[i] == y[j]) {
        out.emplace_back(i++, j++);
      } else if (j >= m || (i < n && at(i + 1, j) >= at(i, j + 1))) {
        out.emplace_back(i++, -1);
      } else {
        out.emplace_back(-1, j++);
      }
    }
    return out;
  }
  constexpr int kWindow = 64;
  int i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] == y[j]) {
      out.emplace_back(i++, j++);
      continue;
    }
    int ahead_y = -1, ahead_x = -1;  // how far y[j] finds x[i], and x[i] finds y[j]
    for (int d = 1; d <= kWindow && i < n && j + d < m && ahead_y < 0; ++d) {
      if (y[j + d] == x[i]) ahead_y = d;
    }
    for (int d = 1; d <= kWindow && j < m && i + d < n && ahead_x < 0; ++d) {
      if (x[i + d] == y[j]) ahead_x = d;
    }
    const bool skip_x = i < n && (j >= m || (ahead_x >= 0 && (ahead_y < 0 || ahead_x <= ahead_y)));
    const bool skip_y = j < m && (i >= n || (ahead_y >= 0 && (ahead_x < 0 || ahead_y < ahead_x)));
    if (skip_x) {
      out.emplace_back(i++, -1);  // y[j]'s partner is nearer ahead in x
    } else if (skip_y) {
      out.emplace_back(-1, j++);
    } else {  // neither has a partner nearby: both unpaired
      out.emplace_back(i++, -1);
      out.emplace_back(-1, j++);
    }
  }
  return out;
}

}  // namespace

std::vector<AlignedSteps> AlignSteps(const RunMeasurement& a, const RunMeasurement& b) {
  const int na = static_cast<int>(a.steps.size()), nb = static_cast<int>(b.steps.size());
  // Steps of both runs that compute a common layer belong together (union-find over both).
  std::vector<int> parent(na + nb);
  std::iota(parent.begin(), parent.end(), 0);
  std::map<std::string, int> owner;
  auto add = [&](const StepMeasure& s, int node) {
    for (const std::string& key : Keys(s)) {
      const auto [it, fresh] = owner.emplace(key, node);
      if (!fresh) parent[Find(parent, node)] = Find(parent, it->second);
    }
  };
  for (int i = 0; i < na; ++i) add(a.steps[i], i);
  for (int i = 0; i < nb; ++i) add(b.steps[i], na + i);
  std::map<int, AlignedSteps> groups;
  for (int i = 0; i < na + nb; ++i) {
    AlignedSteps& g = groups[Find(parent, i)];
    (i < na ? g.a : g.b).push_back(i < na ? i : i - na);
  }
  std::vector<AlignedSteps> matched, only_a, only_b;
  for (auto& [root, g] : groups) {
    if (!g.a.empty() && !g.b.empty()) {
      matched.push_back(g);
    } else {
      (g.a.empty() ? only_b : only_a).push_back(g);
    }
  }
  auto first_of = [](const AlignedSteps& g, bool side_a) {
    return side_a ? g.a.front() : g.b.front();
  };
  std::sort(only_a.begin(), only_a.end(),
            [&](const auto& x, const auto& y) { return first_of(x, true) < first_of(y, true); });
  std::sort(only_b.begin(), only_b.end(),
            [&](const auto& x, const auto& y) { return first_of(x, false) < first_of(y, false); });
  // The rest, by op and shape, keeping execution order.
  const size_t n = only_a.size(), m = only_b.size();
  std::vector<std::string> key_a(n), key_b(m);
  for (size_t i = 0; i < n; ++i) key_a[i] = OpShape(a, only_a[i].a);
  for (size_t j = 0; j < m; ++j) key_b[j] = OpShape(b, only_b[j].b);
  std::vector<AlignedSteps> rows = matched;
  for (const auto& [i, j] : MatchInOrder(key_a, key_b)) {
    if (i >= 0 && j >= 0) {
      rows.push_back({AlignedSteps::By::kOpShape, only_a[i].a, only_b[j].b});
    } else if (i >= 0) {
      rows.push_back({AlignedSteps::By::kOnlyA, only_a[i].a, {}});
    } else {
      rows.push_back({AlignedSteps::By::kOnlyB, {}, only_b[j].b});
    }
  }
  // Execution order: a's, with b's own steps after the row that comes before them in b.
  std::vector<double> b_position(nb, -1);
  for (const AlignedSteps& r : rows) {
    if (r.a.empty()) continue;
    for (int s : r.b) b_position[s] = r.a.front();
  }
  std::vector<double> before(nb, -1);  // the position of the nearest earlier b step placed
  for (int s = 1; s < nb; ++s)
    before[s] = b_position[s - 1] >= 0 ? b_position[s - 1] : before[s - 1];
  std::vector<std::pair<double, size_t>> order(rows.size());
  for (size_t r = 0; r < rows.size(); ++r) {
    const AlignedSteps& row = rows[r];
    order[r] = {row.a.empty() ? before[row.b.front()] + 0.5 + 1e-9 * row.b.front()
                              : static_cast<double>(row.a.front()),
                r};
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<AlignedSteps> sorted;
  sorted.reserve(rows.size());
  for (const auto& [position, r] : order) sorted.push_back(std::move(rows[r]));
  rows = std::move(sorted);
  return rows;
}

StepsFacingIndex::StepsFacingIndex(const std::vector<AlignedSteps>& alignment)
    : alignment_(&alignment) {
  for (size_t r = 0; r < alignment.size(); ++r) {
    for (int s : alignment[r].a) {
      if (s >= static_cast<int>(row_of_a_.size())) row_of_a_.resize(s + 1, -1);
      row_of_a_[s] = static_cast<int>(r);
    }
  }
}

std::vector<int> StepsFacingIndex::StepsFacing(const std::vector<int>& a_steps) const {
  std::vector<int> rows;
  for (int s : a_steps) {
    if (s >= 0 && s < static_cast<int>(row_of_a_.size()) && row_of_a_[s] >= 0) {
      rows.push_back(row_of_a_[s]);
    }
  }
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::vector<int> facing;
  for (int r : rows) {
    const std::vector<int>& b = (*alignment_)[r].b;
    facing.insert(facing.end(), b.begin(), b.end());
  }
  return facing;
}

}  // namespace ntpb::report
