#include "src/bench/slowdown_injection.h"

#include <cstdlib>

#include "ntpbench/error.h"
#include "src/bench/step_timer.h"

namespace ntpb::bench {
namespace {

class SlowedExecutable : public Executable {
 public:
  SlowedExecutable(std::unique_ptr<Executable> inner, std::size_t step, double factor)
      : inner_(std::move(inner)), step_(step), factor_(factor) {}
  const std::vector<StepInfo>& steps() const override { return inner_->steps(); }
  void RunStep(std::size_t index) override {
    if (index != step_) return inner_->RunStep(index);
    const int64_t start = NowNanoseconds();
    inner_->RunStep(index);
    inner_->Wait();
    const int64_t until = start + static_cast<int64_t>((NowNanoseconds() - start) * factor_);
    while (NowNanoseconds() < until) {
    }
  }
  void Wait() override { inner_->Wait(); }
  void WriteTensor(const std::string& n, const std::vector<float>& v) override {
    inner_->WriteTensor(n, v);
  }
  std::vector<float> ReadTensor(const std::string& n) const override {
    return inner_->ReadTensor(n);
  }
  int64_t workspace_bytes() const override { return inner_->workspace_bytes(); }
  int64_t activation_bytes() const override { return inner_->activation_bytes(); }

 private:
  std::unique_ptr<Executable> inner_;
  std::size_t step_;
  double factor_;
};

}  // namespace

std::unique_ptr<Executable> InjectSlowdown(std::unique_ptr<Executable> inner,
                                           const std::string& spec) {
  const size_t colon = spec.rfind(':');
  const std::string layer = colon == std::string::npos ? "" : spec.substr(0, colon);
  char* end = nullptr;
  const double factor =
      colon == std::string::npos ? 0 : std::strtod(spec.c_str() + colon + 1, &end);
  if (layer.empty() || !end || *end != '\0' || factor < 1.0) {
    throw Error("", "", "--ntpb_inject_slowdown",
                "expected LAYER:FACTOR with FACTOR >= 1, got '" + spec + "'");
  }
  const auto& steps = inner->steps();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].name == layer)
      return std::make_unique<SlowedExecutable>(std::move(inner), i, factor);
  }
  return inner;  // this topology has no such layer: unchanged
}

}  // namespace ntpb::bench
