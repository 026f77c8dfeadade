#pragma once

#include <cstdint>

namespace ntpb::instrument {

struct HeapState {
  int64_t live_bytes = 0;  // allocated through operator new and not yet freed
  int64_t peak_bytes = 0;  // highest live_bytes since the last ResetHeapPeak()
};

HeapState CurrentHeap();
void ResetHeapPeak();

}  // namespace ntpb::instrument
