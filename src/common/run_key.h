// The name of one benchmark run, the one place that spells it: its family (the topology's name,
// backend, precision and what the command line changed: `mlp/onednn/bf16/n_hidden:512`, a
// scenario's with `/offline`) and Google Benchmark's arguments, `batch:N` or, for scenarios,
// `streams:S/batch:N`. The runner encodes it, the JSON reporter, the run table and the run-file
// reader parse it back; nothing else cuts names at "/batch:".
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

namespace ntpb {

struct RunKey {
  std::string family;
  int64_t streams = 0;  // 0: single-stream, no streams argument
  int64_t batch = 0;

  // Google Benchmark's arguments: "batch:4", "streams:2/batch:4".
  std::string Args() const {
    return (streams > 0 ? "streams:" + std::to_string(streams) + "/" : std::string()) +
           "batch:" + std::to_string(batch);
  }
  // What Google Benchmark names the run, less its "/real_time" or "/manual_time".
  std::string Encode() const { return family + "/" + Args(); }

  // A run's name as Encode writes it, with or without what Google Benchmark appends after the
  // arguments ("/iterations:1", "/repeats:3", "/real_time", "/manual_time", an aggregate's
  // "_median"); nullopt for a name it did not write.
  static std::optional<RunKey> Parse(const std::string& name) {
    // The last component "batch:N" ends the arguments; "streams:S" may stand before it.
    size_t end = name.size();
    while (end > 0) {
      const size_t slash = name.rfind('/', end - 1);
      if (slash == std::string::npos || slash == 0) return std::nullopt;
      const std::string part = name.substr(slash + 1, end - slash - 1);
      RunKey key;
      if (part.rfind("batch:", 0) == 0 && Number(part.substr(6), &key.batch)) {
        key.family = name.substr(0, slash);
        const size_t streams_at = key.family.rfind("/streams:");
        if (streams_at != std::string::npos && streams_at > 0 &&
            Number(key.family.substr(streams_at + 9), &key.streams)) {
          key.family.resize(streams_at);
        }
        return key;
      }
      end = slash;
    }
    return std::nullopt;
  }

 private:
  static bool Number(const std::string& text, int64_t* value) {
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != text.npos) {
      return false;
    }
    *value = std::strtoll(text.c_str(), nullptr, 10);
    return true;
  }
};

}  // namespace ntpb
