// Plain-text tables with columns fitted to their content, shared by the reports.
#pragma once

#include <string>
#include <vector>

#include "src/common/format_number.h"
#include "src/common/printable.h"

namespace ntpb::report {

// Columns a string takes on a terminal: UTF-8 continuation bytes take none.
size_t DisplayLength(const std::string& s);

// A name shortened to `max` columns in the middle, keeping more of its end (the specific part:
// "/features/features.1/block/block.1/fc1/Conv" -> "/featu…s.1/block/block.1/fc1/Conv").
std::string Elide(const std::string& name, size_t max);

// Right-aligned columns except those asked to be left-aligned (and headerless ones, which hold
// bars); a rule under the header and wherever Rule() is called.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
  // Cells are printed safely: a control character in a name shows as \xNN.
  void Add(std::vector<std::string> row) {
    for (std::string& cell : row) cell = Printable(cell);
    rows_.push_back(std::move(row));
  }
  void Rule() { rows_.push_back({}); }
  // The first `left_aligned` columns read left to right.
  std::string Render(size_t left_aligned = 1) const;
  // left_aligned[i]: column i reads left to right.
  std::string Render(const std::vector<bool>& left_aligned) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ntpb::report
