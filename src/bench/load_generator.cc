#include "src/bench/load_generator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <random>
#include <thread>

#include "ntpbench/scenario.h"
#include "src/common/statistics.h"

namespace ntpb::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

std::vector<double> PoissonArrivals(double rate, int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> gap(rate);
  std::vector<double> arrivals(static_cast<size_t>(std::clamp<int64_t>(n, 0, kMaxQueries)));
  double t = 0;
  for (double& a : arrivals) {
    t += gap(rng);
    a = t;
  }
  return arrivals;
}

// The first exception a stream's query threw, kept until every thread has joined: an exception
// leaving a stream thread would call std::terminate, and one leaving the calling thread while the
// others still run destroys joinable threads (terminate "without an active exception").
class StreamErrors {
 public:
  // Runs `query`; an exception is recorded, and the streams stop issuing.
  // A template, not std::function: it wraps each query of the timed loops.
  template <typename Query>
  void Guard(const Query& query) {
    if (failed_) return;
    try {
      query();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!first_) first_ = std::current_exception();
      failed_ = true;
    }
  }
  bool failed() const { return failed_; }
  void RethrowFirst() {
    if (first_) std::rethrow_exception(first_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr first_;
  std::atomic<bool> failed_{false};
};

static bool PastLimit(Clock::time_point start, double max_seconds) {
  return max_seconds > 0 && SecondsSince(start) >= max_seconds;
}

LoadResult RunOffline(int streams, int64_t queries_per_stream, const ServeQuery& serve,
                      double max_seconds) {
  std::vector<std::vector<double>> per_stream(static_cast<size_t>(streams));
  const Clock::time_point start = Clock::now();
  StreamErrors errors;
  auto stream = [&](int s) {
    errors.Guard([&] {
      std::vector<double>& mine = per_stream[static_cast<size_t>(s)];
      mine.reserve(static_cast<size_t>(std::clamp<int64_t>(queries_per_stream, 0, 1 << 20)));
      for (int64_t q = 0;
           q < queries_per_stream && !PastLimit(start, max_seconds) && !errors.failed(); ++q) {
        const Clock::time_point begin = Clock::now();
        serve(s);
        mine.push_back(SecondsSince(begin));
      }
    });
  };
  // Stream 0 runs on the calling thread: it keeps the thread pool an OpenMP backend made for it
  // (each new thread gets a pool of its own, and more pool threads than cores make libgomp's
  // workers sleep instead of spinning between parallel regions).
  std::vector<std::thread> threads;
  for (int s = 1; s < streams; ++s) threads.emplace_back(stream, s);
  stream(0);
  for (std::thread& t : threads) t.join();
  errors.RethrowFirst();
  LoadResult r;
  r.wall_s = SecondsSince(start);
  for (const std::vector<double>& mine : per_stream) {
    r.latencies_s.insert(r.latencies_s.end(), mine.begin(), mine.end());
  }
  r.queries = static_cast<int64_t>(r.latencies_s.size());
  return r;
}

LoadResult RunServer(int streams, const std::vector<double>& arrivals, const ServeQuery& serve,
                     double max_seconds) {
  LoadResult r;
  r.latencies_s.resize(arrivals.size());
  size_t issued = 0;
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<size_t> waiting;  // arrived, not yet taken
  bool issued_all = false;
  StreamErrors errors;
  const Clock::time_point start = Clock::now();
  auto worker = [&](int s) {
    for (;;) {
      size_t q = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [&] { return !waiting.empty() || issued_all; });
        if (waiting.empty()) return;
        q = waiting.front();
        waiting.pop_front();
      }
      errors.Guard([&] { serve(s); });
      r.latencies_s[q] = SecondsSince(start) - arrivals[q];
    }
  };
  // The issuer sleeps until each arrival; a late wake-up issues the query at once, its latency
  // still counted from its scheduled arrival (as LoadGen does).
  std::thread issuer([&] {
    for (size_t q = 0; q < arrivals.size(); ++q) {
      if ((max_seconds > 0 && arrivals[q] >= max_seconds) || errors.failed()) break;
      std::this_thread::sleep_until(start + std::chrono::duration_cast<Clock::duration>(
                                                std::chrono::duration<double>(arrivals[q])));
      {
        std::lock_guard<std::mutex> lock(mutex);
        waiting.push_back(q);
        issued = q + 1;
      }
      ready.notify_one();
    }
    {
      std::lock_guard<std::mutex> lock(mutex);
      issued_all = true;
    }
    ready.notify_all();
  });
  // Stream 0 on the calling thread, as in RunOffline.
  std::vector<std::thread> workers;
  for (int s = 1; s < streams; ++s) workers.emplace_back(worker, s);
  worker(0);
  issuer.join();
  for (std::thread& t : workers) t.join();
  errors.RethrowFirst();
  r.wall_s = SecondsSince(start);
  r.latencies_s.resize(issued);
  r.queries = static_cast<int64_t>(issued);
  return r;
}

LoadResult RunMultiStream(int streams, int64_t queries, const ServeQuery& serve,
                          double max_seconds) {
  LoadResult r;
  // Streams 1.. keep their threads for the whole run (a backend's thread pool lives with its
  // thread); each query is a generation they wait for, then report done.
  std::mutex mutex;
  std::condition_variable go, done;
  int64_t generation = 0;
  int finished = 0;
  bool stop = false;
  StreamErrors errors;
  std::vector<std::thread> helpers;
  for (int s = 1; s < streams; ++s) {
    helpers.emplace_back([&, s] {
      int64_t seen = 0;
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex);
          go.wait(lock, [&] { return stop || generation > seen; });
          if (stop) return;
          seen = generation;
        }
        errors.Guard([&] { serve(s); });
        {
          std::lock_guard<std::mutex> lock(mutex);
          ++finished;
        }
        done.notify_one();
      }
    });
  }
  // Reserved up front: no allocation between queries.
  r.latencies_s.reserve(static_cast<size_t>(std::clamp<int64_t>(queries, 0, 1 << 20)));
  const Clock::time_point start = Clock::now();
  for (int64_t q = 0; q < queries && !PastLimit(start, max_seconds) && !errors.failed(); ++q) {
    const Clock::time_point begin = Clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex);
      finished = 0;
      ++generation;
    }
    go.notify_all();
    errors.Guard([&] { serve(0); });
    {
      std::unique_lock<std::mutex> lock(mutex);
      done.wait(lock, [&] { return finished == streams - 1; });
    }
    r.latencies_s.push_back(SecondsSince(begin));
  }
  r.wall_s = SecondsSince(start);
  r.queries = static_cast<int64_t>(r.latencies_s.size());
  {
    std::lock_guard<std::mutex> lock(mutex);
    stop = true;
  }
  go.notify_all();
  for (std::thread& t : helpers) t.join();
  errors.RethrowFirst();
  return r;
}

MaxQpsSearch FindMaxQps(const std::function<LoadResult(double rate)>& run_at, double p99_bound_s,
                        double low, double high, int steps) {
  MaxQpsSearch search;
  auto meets = [&](double rate) {
    const LoadResult r = run_at(rate);
    const double p99 = Percentile(r.latencies_s, 99);
    // Where the streams cannot keep up the queue grows and with it the p99 (every query issued
    // is served, its wait included): the bound alone decides.
    const bool ok = p99 <= p99_bound_s;
    search.steps.push_back({rate, p99, r.AchievedQps(), ok});
    if ((ok && rate > search.max_qps) || search.steps.size() == 1) search.result = r;
    if (ok && rate > search.max_qps) {
      search.max_qps = rate;
      search.p99_s = p99;
    }
    return ok;
  };
  if (!meets(low)) return search;
  if (meets(high)) return search;  // the bracket's top meets it: the streams are not the limit
  for (int i = 0; i < steps; ++i) {
    const double mid = 0.5 * (low + high);
    (meets(mid) ? low : high) = mid;
  }
  return search;
}

}  // namespace ntpb::bench
