// getrusage(RUSAGE_SELF): faults and context switches of every thread of the process.
#include <sys/resource.h>

#include "src/instrument/sources.h"

namespace ntpb::instrument {
namespace {

class RusageSource : public CounterSource {
 public:
  std::string name() const override { return "rusage"; }
  const std::vector<std::string>& metrics() const override {
    static const std::vector<std::string> m = {"minor_faults", "major_faults", "voluntary_switches",
                                               "involuntary_switches"};
    return m;
  }
  void Start() override { Sample(start_); }
  void Read(double* values) override {
    double now[4];
    Sample(now);
    for (int i = 0; i < 4; ++i) values[i] = now[i] - start_[i];
  }

 private:
  static void Sample(double* v) {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    v[0] = static_cast<double>(u.ru_minflt);
    v[1] = static_cast<double>(u.ru_majflt);
    v[2] = static_cast<double>(u.ru_nvcsw);
    v[3] = static_cast<double>(u.ru_nivcsw);
  }
  double start_[4] = {};
};

}  // namespace

std::unique_ptr<CounterSource> MakeRusageSource(std::string*) {
  return std::make_unique<RusageSource>();
}

}  // namespace ntpb::instrument
