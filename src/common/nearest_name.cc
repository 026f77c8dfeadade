#include "src/common/nearest_name.h"

#include <algorithm>
#include <cctype>

namespace ntpb {
namespace {

bool Same(char a, char b) {
  return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
}

// Edits between a and b, ignoring case: insertions, deletions, substitutions and swaps of two
// neighbours ("rnu" is one edit from "run"), the optimal-string-alignment distance.
size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (Same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && Same(a[i - 1], b[j - 2]) && Same(a[i - 2], b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::string NearestName(const std::string& given, const std::vector<std::string>& known) {
  std::string best;
  size_t best_distance = std::min<size_t>(3, std::max<size_t>(1, given.size() / 3)) + 1;
  for (const std::string& name : known) {
    const size_t d = EditDistance(given, name);
    if (d < best_distance) {
      best = name;
      best_distance = d;
    }
  }
  return best;
}

std::string DidYouMean(const std::string& given, const std::vector<std::string>& known) {
  const std::string nearest = NearestName(given, known);
  return nearest.empty() ? "" : " (did you mean '" + nearest + "'?)";
}

}  // namespace ntpb
