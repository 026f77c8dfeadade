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
  // The rest, by op and shape: the longest common subsequence keeps execution order. The keys
  // once, not per cell of the n x m table.
  const size_t n = only_a.size(), m = only_b.size();
  std::vector<std::string> key_a(n), key_b(m);
  for (size_t i = 0; i < n; ++i) key_a[i] = OpShape(a, only_a[i].a);
  for (size_t j = 0; j < m; ++j) key_b[j] = OpShape(b, only_b[j].b);
  std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
  for (size_t i = n; i-- > 0;) {
    for (size_t j = m; j-- > 0;) {
      lcs[i][j] =
          key_a[i] == key_b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  std::vector<AlignedSteps> rows = matched;
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && key_a[i] == key_b[j]) {
      rows.push_back({AlignedSteps::By::kOpShape, only_a[i].a, only_b[j].b});
      ++i, ++j;
    } else if (j >= m || (i < n && lcs[i + 1][j] >= lcs[i][j + 1])) {
      rows.push_back({AlignedSteps::By::kOnlyA, only_a[i++].a, {}});
    } else {
      rows.push_back({AlignedSteps::By::kOnlyB, {}, only_b[j++].b});
    }
  }
  // Execution order: a's, with b's own steps after the row that comes before them in b.
  std::vector<double> b_position(nb, -1);
  for (const AlignedSteps& r : rows) {
    if (r.a.empty()) continue;
    for (int s : r.b) b_position[s] = r.a.front();
  }
  auto position = [&](const AlignedSteps& r) {
    if (!r.a.empty()) return static_cast<double>(r.a.front());
    double before = -1;
    for (int s = r.b.front() - 1; s >= 0 && before < 0; --s) before = b_position[s];
    return before + 0.5 + 1e-6 * r.b.front();
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const AlignedSteps& x, const AlignedSteps& y) {
    return position(x) < position(y);
  });
  return rows;
}

std::vector<int> StepsFacing(const std::vector<AlignedSteps>& alignment,
                             const std::vector<int>& a_steps) {
  std::vector<int> facing;
  for (const AlignedSteps& row : alignment) {
    const bool shares = std::any_of(row.a.begin(), row.a.end(), [&](int s) {
      return std::find(a_steps.begin(), a_steps.end(), s) != a_steps.end();
    });
    if (shares) facing.insert(facing.end(), row.b.begin(), row.b.end());
  }
  return facing;
}

}  // namespace ntpb::report
