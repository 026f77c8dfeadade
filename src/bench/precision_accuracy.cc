#include "src/bench/precision_accuracy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "ntpbench/error.h"
#include "src/backends/random_data.h"
#include "src/bench/accuracy.h"
#include "src/topology/numeric_outputs.h"
#include "src/topology/op_catalog.h"

namespace ntpb::bench {

double RmsRelativeError(const std::vector<float>& actual, const std::vector<float>& reference) {
  const double inf = std::numeric_limits<double>::infinity();
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < actual.size() && i < reference.size(); ++i) {
    const double a = actual[i], r = reference[i];
    if (std::isnan(a) || std::isnan(r)) return inf;
    diff += (a - r) * (a - r);
    norm += r * r;
  }
  if (norm == 0) return diff == 0 ? 0 : inf;
  return std::sqrt(diff / norm);
}

namespace {

// The layer writing `tensor`, and its shape there; null for a graph input.
const ResolvedLayer* Producer(const ResolvedTopology& t, const std::string& tensor, Shape* shape) {
  for (const ResolvedLayer& l : t.layers) {
    for (std::size_t k = 0; k < l.outputs.size(); ++k) {
      if (l.outputs[k] != tensor) continue;
      if (shape && k < l.output_shapes.size()) *shape = l.output_shapes[k];
      return &l;
    }
  }
  return nullptr;
}

// The input of a final softmax: what a lower precision's loss shows in before a saturated
// softmax flattens it.
std::string LogitsOf(const ResolvedTopology& t, const std::string& output) {
  const ResolvedLayer* l = Producer(t, output, nullptr);
  if (!l || l->inputs.empty()) return "";
  return l->op == "softmax" || l->op == "log_softmax" ? l->inputs[0] : "";
}

// Indices of the k largest values of row [begin, begin + n), largest first.
std::vector<int64_t> TopK(const float* row, int64_t n, int64_t k) {
  std::vector<int64_t> index(static_cast<std::size_t>(n));
  std::iota(index.begin(), index.end(), 0);
  k = std::min(k, n);
  std::partial_sort(index.begin(), index.begin() + k, index.end(),
                    [&](int64_t x, int64_t y) { return row[x] > row[y]; });
  index.resize(static_cast<std::size_t>(k));
  return index;
}

// Sums over every input, so that one verdict covers all of them.
struct Agreement {
  double top1 = 0, top5 = 0, rows = 0;
  bool with_top5 = false;
  void Add(const std::vector<float>& actual, const std::vector<float>& reference, int64_t classes) {
    if (classes < 2) return;
    const int64_t n = static_cast<int64_t>(std::min(actual.size(), reference.size())) / classes;
    with_top5 = classes > 5;
    for (int64_t r = 0; r < n; ++r) {
      const std::vector<int64_t> a = TopK(actual.data() + r * classes, classes, 5);
      const std::vector<int64_t> b = TopK(reference.data() + r * classes, classes, 5);
      top1 += a[0] == b[0];
      if (with_top5) {
        int64_t shared = 0;
        for (int64_t x : a) shared += std::count(b.begin(), b.end(), x) > 0;
        top5 += static_cast<double>(shared) / 5;
      }
      rows += 1;
    }
  }
};

// Errors summed over every input: RMS-scaled error and cosine of the concatenation.
struct Error2 {
  double diff = 0, norm = 0, dot = 0, aa = 0, max_rel = 0;
  bool nan = false;
  void Add(const std::vector<float>& a, const std::vector<float>& r) {
    for (std::size_t i = 0; i < a.size() && i < r.size(); ++i) {
      const double x = a[i], y = r[i];
      if (std::isnan(x) || std::isnan(y)) {
        nan = true;
        continue;
      }
      diff += (x - y) * (x - y);
      norm += y * y;
      dot += x * y;
      aa += x * x;
      max_rel = std::max(max_rel, std::abs(x - y) / std::max(1.0, std::abs(y)));
    }
  }
  double Rms() const {
    if (nan) return std::numeric_limits<double>::infinity();
    return norm > 0   ? std::sqrt(diff / norm)
           : diff > 0 ? std::numeric_limits<double>::infinity()
                      : 0;
  }
  double Cosine() const {
    if (nan) return 0;
    if (aa > 0 && norm > 0) return dot / std::sqrt(aa * norm);
    return aa == norm ? 1.0 : 0.0;
  }
};

// Read right after the step writing it (Executable::ReadFreshTensor).
std::vector<float> ReadOrEmpty(const Executable& exe, const std::string& tensor) {
  try {
    return exe.ReadFreshTensor(tensor);
  } catch (const std::exception&) {
    return {};  // not kept by this backend (fused, or its buffer reused)
  }
}

// Runs every step, reading `tensor` right after the step that writes it (a backend may reuse its
// buffer later); empty when no step writes it or the backend did not keep it.
std::vector<float> RunReading(Executable& exe, const ResolvedTopology& t,
                              const std::string& tensor) {
  std::vector<float> values;
  const std::vector<StepInfo>& steps = exe.steps();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    exe.RunStep(i);
    exe.Wait();
    const int layer = steps[i].layer < 0 ? -1 : steps[i].layer + steps[i].fused;
    if (layer < 0 || !values.empty()) continue;
    const std::vector<std::string>& outs = t.layers[static_cast<std::size_t>(layer)].outputs;
    if (std::find(outs.begin(), outs.end(), tensor) != outs.end())
      values = ReadOrEmpty(exe, tensor);
  }
  return values;
}

}  // namespace

OutputAccuracy MeasureAccuracy(const ResolvedTopology& t, Executable& exe, const RunConfig& config,
                               std::vector<double>* step_errors, const AccuracyBudget& budget) {
  const auto start = std::chrono::steady_clock::now();
  const Backend* eigen = FindBackend("eigen");
  if (!eigen) throw Error(t.file, "", "backend", "the eigen reference backend is not built");
  RunConfig reference_config = config;
  reference_config.precision = Precision::kF32;
  const std::unique_ptr<Executable> ref = eigen->Compile(t, reference_config);

  // The run's inputs as compiled, written back at the end.
  std::map<std::string, std::vector<float>> first_inputs;
  for (const auto& [name, shape] : t.inputs) {
    first_inputs[name] = GraphInputValues(config, t, name, shape);
  }
  auto write_inputs = [&](int64_t k) {
    for (const auto& [name, shape] : t.inputs) {
      const std::vector<float> values =
          k == 0 ? first_inputs.at(name)
                 : RandomGraphInput(config.seed + 1000003ULL * static_cast<uint64_t>(k), t, name,
                                    shape);
      exe.WriteTensor(name, values);
      ref->WriteTensor(name, values);
    }
  };

  const std::vector<std::string> outputs = NumericOutputs(t);
  std::string logits;
  for (const std::string& out : outputs) {
    if (logits.empty()) logits = LogitsOf(t, out);
  }
  // Step by step on the first input: each step's output against the same layer's in the
  // reference, read before a later step can reuse its buffer (the logits too).
  write_inputs(0);
  std::vector<float> first_logits[2];
  auto writes_logits = [&](const StepInfo& step) {
    if (logits.empty() || step.layer < 0) return false;
    const std::vector<std::string>& outs =
        t.layers[static_cast<std::size_t>(step.layer + step.fused)].outputs;
    return std::find(outs.begin(), outs.end(), logits) != outs.end();
  };
  const std::vector<StepInfo>& steps = exe.steps();
  const std::vector<StepInfo>& ref_steps = ref->steps();
  auto last_layer = [](const StepInfo& s) { return s.layer < 0 ? -1 : s.layer + s.fused; };
  if (step_errors) step_errors->assign(steps.size(), -1.0);
  std::size_t r = 0;
  int done = -1;  // the last layer the reference has computed
  auto ref_step = [&] {
    ref->RunStep(r);
    done = std::max(done, last_layer(ref_steps[r]));
    if (writes_logits(ref_steps[r])) first_logits[1] = ReadOrEmpty(*ref, logits);
    ++r;
  };
  for (std::size_t i = 0; i < steps.size(); ++i) {
    exe.RunStep(i);
    exe.Wait();
    if (writes_logits(steps[i])) first_logits[0] = ReadOrEmpty(exe, logits);
    const int layer = last_layer(steps[i]);
    if (layer < 0) continue;
    while (r < ref_steps.size() && (ref_steps[r].layer < 0 || last_layer(ref_steps[r]) <= layer)) {
      ref_step();
    }
    const ResolvedLayer& l = t.layers[static_cast<std::size_t>(layer)];
    const OpDef* def = FindOp(l.op);
    if (!step_errors || done != layer || l.outputs.empty() || (def && def->discrete_output)) {
      continue;
    }
    const std::vector<float> a = ReadOrEmpty(exe, l.outputs[0]);
    const std::vector<float> b = ReadOrEmpty(*ref, l.outputs[0]);
    if (!a.empty() && a.size() == b.size()) (*step_errors)[i] = RmsRelativeError(a, b);
  }
  while (r < ref_steps.size()) ref_step();
  exe.Wait();

  // End to end over seeded inputs: the outputs, the logits, and the agreement of a classifier
  // (the first input's from the step-by-step run above).
  int64_t rows_per_input = 0, classes = 0;
  for (const std::string& out : outputs) {
    Shape shape;
    if (Producer(t, out, &shape) && !shape.empty()) {
      classes = shape.back();
      rows_per_input += classes > 0 ? NumElements(shape) / classes : 0;
    }
  }
  const bool given = !config.inputs.empty();
  const int64_t rows = std::max<int64_t>(rows_per_input, 1);
  const int64_t wanted =
      given ? 1
            : std::min(budget.max_inputs,
                       std::max(budget.min_inputs, (budget.predictions + rows - 1) / rows));
  Error2 out_error, logit_error;
  Agreement agreement;
  int64_t inputs = 0;
  for (int64_t k = 0; k < wanted; ++k) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (k > 0 && elapsed > budget.seconds) break;
    if (k > 0) write_inputs(k);
    const std::vector<float> a_logits = k == 0 ? first_logits[0] : RunReading(exe, t, logits);
    const std::vector<float> b_logits = k == 0 ? first_logits[1] : RunReading(*ref, t, logits);
    const bool have_logits = !a_logits.empty() && a_logits.size() == b_logits.size();
    if (have_logits) logit_error.Add(a_logits, b_logits);
    for (const std::string& out : outputs) {
      const std::vector<float> a = exe.ReadTensor(out), b = ref->ReadTensor(out);
      out_error.Add(a, b);
      Shape shape;
      if (!Producer(t, out, &shape) || shape.empty()) continue;
      // The prediction is the argmax of the logits where they are known: a softmax stored in
      // bf16 rounds near probabilities to one value, and a tie is no prediction.
      if (have_logits && LogitsOf(t, out) == logits) {
        agreement.Add(a_logits, b_logits, shape.back());
      } else {
        agreement.Add(a, b, shape.back());
      }
    }
    ++inputs;
  }
  // The executable's inputs as the run compiled them, for the timed loop.
  for (const auto& [name, values] : first_inputs) exe.WriteTensor(name, values);
  exe.Run();
  OutputAccuracy acc;
  acc.max_rel_err = out_error.nan ? std::numeric_limits<double>::infinity() : out_error.max_rel;
  acc.cosine = out_error.Cosine();
  acc.rms_rel_err = out_error.Rms();
  if (!logits.empty() && logit_error.norm + logit_error.aa > 0) {
    acc.logits = logits;
    acc.logits_rms_rel_err = logit_error.Rms();
    acc.logits_cosine = logit_error.Cosine();
  }
  if (agreement.rows > 0) {
    acc.top1_agreement = agreement.top1 / agreement.rows;
    if (agreement.with_top5) acc.top5_overlap = agreement.top5 / agreement.rows;
    acc.predictions = agreement.rows;
  }
  acc.inputs = static_cast<double>(inputs);
  return acc;
}

}  // namespace ntpb::bench
