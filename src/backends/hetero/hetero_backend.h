// The hetero backend: one topology split across backends by a placement (RunConfig::placement,
// `--place bilstm=onednn,default=opencl`), as OpenVINO's HETERO mode splits one across devices.
// Consecutive layers placed on the same backend form a segment, compiled by that backend as a
// topology of its own; the tensors that cross from one segment to the next are copied between
// them by transfer steps, shown as copy inlays ("bilstm.input.to_onednn"). A layer its backend
// cannot run is an error naming it, unless a fallback backend was given: then it runs there and
// its steps' kernel says "fallback from opencl".
#pragma once

#include <map>
#include <string>

#include "ntpbench/backend.h"

namespace ntpb {

const Backend* HeteroBackendInstance();

// Parses "layer=backend,...,default=backend[,fallback=backend]" into a placement; throws
// ntpb::Error naming `field` on a malformed item or an unknown backend.
std::map<std::string, std::string> ParsePlacement(const std::string& text,
                                                  const std::string& field);
// "bilstm=onednn,default=opencl": the placement as the benchmark name and the config carry it.
std::string PlacementText(const std::map<std::string, std::string>& placement);

}  // namespace ntpb
