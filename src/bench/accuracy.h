// How far a run's outputs are from the f32 reference: lower precisions change accuracy as well
// as speed, and a user choosing one must see both.
#pragma once

#include <vector>

namespace ntpb {

struct AccuracyDelta {
  // max |actual - reference| / max(1, |reference|) over all elements: relative error for
  // values above 1, absolute below (probabilities, normalised activations), as the
  // equivalence tests measure it.
  double max_rel_err = 0;
  double cosine = 1;  // actual . reference / (|actual| |reference|)
  // max |actual - reference| / max |reference|: relative to the output's scale (a stored
  // framework output, --check-output), not element by element.
  double norm_rel_err = 0;
};

// Both the same length (throws std::invalid_argument otherwise). NaN anywhere gives
// max_rel_err = norm_rel_err = infinity and cosine = 0.
AccuracyDelta CompareOutputs(const std::vector<float>& actual, const std::vector<float>& reference);

}  // namespace ntpb
