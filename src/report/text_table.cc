#include "src/report/text_table.h"

#include <algorithm>
#include <cstdio>

namespace ntpb::report {

std::string Elide(const std::string& name, size_t max) {
  if (name.size() <= max || max < 8) return name;
  const size_t head = (max - 1) / 4, tail = max - 1 - head;
  return name.substr(0, head) + "\u2026" + name.substr(name.size() - tail);
}

size_t DisplayLength(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string TextTable::Render(size_t left_aligned) const {
  std::vector<bool> left(rows_[0].size(), false);
  for (size_t i = 0; i < left.size() && i < left_aligned; ++i) left[i] = true;
  return Render(left);
}

std::string TextTable::Render(const std::vector<bool>& left_aligned) const {
  std::vector<size_t> width(rows_[0].size(), 0);
  for (const auto& r : rows_) {
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], DisplayLength(r[i]));
  }
  size_t total = 0;
  for (size_t w : width) total += w + 2;
  std::string out;
  for (size_t k = 0; k < rows_.size(); ++k) {
    const auto& r = rows_[k];
    if (r.empty() || k == 1) {
      out += std::string(total, '-') + "\n";
      if (r.empty()) continue;
    }
    for (size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - DisplayLength(r[i]), ' ');
      const bool left = (i < left_aligned.size() && left_aligned[i]) || rows_[0][i].empty();
      out += left ? r[i] + pad : pad + r[i];
      out += i + 1 < r.size() ? "  " : "";
    }
    out += "\n";
  }
  return out;
}

}  // namespace ntpb::report
