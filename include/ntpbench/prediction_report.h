// The page of `ntpbench report CHECK.json...`: how far latency predictions were from what the
// machines measured (`ntpbench predict --check -o`), predicted against measured for every model
// and batch, one colour per calibrated machine, and the table of errors.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/prediction_check.h"

namespace ntpb {

// One self-contained HTML page (inline SVG).
std::string RenderPredictionCheckHtml(const std::vector<PredictionCheck>& checks,
                                      const std::string& title);

}  // namespace ntpb
