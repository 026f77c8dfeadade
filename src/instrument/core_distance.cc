#include "src/instrument/core_distance.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>

namespace ntpb::instrument {
namespace {

constexpr int kBatches = 8;
constexpr int kRoundTripsPerBatch = 250;
// Spins between two looks at the clock: reading it every spin would be most of a round trip.
constexpr int kSpinsPerClockRead = 4096;
constexpr std::chrono::milliseconds kPartnerWait{20};

using Clock = std::chrono::steady_clock;

// Each on a cache line of its own: the ball is the only line that moves between the cores.
struct alignas(64) Ball {
  std::atomic<int> value{0};
};
struct alignas(64) Flag {
  std::atomic<bool> value{false};
};

bool PinTo(pthread_t thread, int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(thread, sizeof(set), &set) == 0;
}

// Waits until `ball` holds `want`; false when `stop` was raised or the wait passed `deadline`.
bool WaitFor(const Ball& ball, int want, const Flag& stop, Clock::time_point deadline) {
  for (int spins = 0;; ++spins) {
    if (ball.value.load(std::memory_order_acquire) == want) return true;
    if (spins == kSpinsPerClockRead) {
      spins = 0;
      if (stop.value.load(std::memory_order_relaxed) || Clock::now() > deadline) return false;
    }
  }
}

}  // namespace

double MeasureCoreToCoreNs() {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return 0;
  int cpus[2] = {-1, -1}, found = 0;
  for (int c = 0; c < CPU_SETSIZE && found < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus[found++] = c;
  }
  if (found < 2) return 0;
  cpu_set_t own;
  if (pthread_getaffinity_np(pthread_self(), sizeof(own), &own) != 0) return 0;
  if (!PinTo(pthread_self(), cpus[0])) return 0;

  Ball ball;
  Flag stop;
  const int round_trips = kBatches * kRoundTripsPerBatch;
  // The partner answers each odd value with the next even one.
  std::thread partner;
  try {
    partner = std::thread([&] {
      PinTo(pthread_self(), cpus[1]);
      for (int i = 0; i < round_trips; ++i) {
        if (!WaitFor(ball, 2 * i + 1, stop, Clock::now() + kPartnerWait)) return;
        ball.value.store(2 * i + 2, std::memory_order_release);
      }
    });
  } catch (const std::system_error&) {  // no thread to be had: not measured
    pthread_setaffinity_np(pthread_self(), sizeof(own), &own);
    return 0;
  }
  // The best of the batches that finished: a busy machine (another process on one of the two
  // CPUs) stalls some, and one that did not answer at all leaves nothing.
  double best_ns = 0;
  bool answered = true;
  for (int batch = 0; batch < kBatches && answered; ++batch) {
    const Clock::time_point start = Clock::now();
    for (int j = 0; j < kRoundTripsPerBatch; ++j) {
      const int i = batch * kRoundTripsPerBatch + j;
      ball.value.store(2 * i + 1, std::memory_order_release);
      if (!WaitFor(ball, 2 * i + 2, stop, start + kPartnerWait)) {
        answered = false;
        break;
      }
    }
    if (!answered) break;
    const double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                      (2.0 * kRoundTripsPerBatch);
    best_ns = batch == 0 ? ns : std::min(best_ns, ns);
  }
  stop.value.store(true, std::memory_order_relaxed);
  partner.join();
  pthread_setaffinity_np(pthread_self(), sizeof(own), &own);
  return best_ns;
}

}  // namespace ntpb::instrument
