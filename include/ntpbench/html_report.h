// `ntpbench report RUN.json... -o report.html`: one self-contained HTML page (inline SVG, no
// script, nothing fetched when viewed) over any number of run files, from any machines: the
// runs, comparisons keyed by topology / backend / precision / batch / machine (grouped bars with
// speed-ups, layer-aligned tables), precisions with their accuracy next to their speed-up, and
// per run the hot spots, the markers and a roofline under its machine's measured ceilings.
// Runs of one suite from several CI runners merged here are a fleet comparison.
#pragma once

#include <string>
#include <vector>

#include "ntpbench/run_file.h"

namespace ntpb {

struct HtmlReportOptions {
  std::string title = "ntpbench report";
  int top = 20;  // steps per hot-spot chart and rows per layer-aligned table
};

std::string RenderHtmlReport(const std::vector<RunResults>& files,
                             const HtmlReportOptions& options = {});

}  // namespace ntpb
