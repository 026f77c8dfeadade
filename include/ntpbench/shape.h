// Concrete tensor shapes (row-major, outermost dimension first).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ntpb {

using Shape = std::vector<int64_t>;

// Product of the dimensions (1 for a scalar shape).
int64_t NumElements(const Shape& shape);
// "[1, 3, 224, 224]".
std::string ShapeToString(const Shape& shape);

}  // namespace ntpb
