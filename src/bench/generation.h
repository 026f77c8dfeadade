// A decoder's generation as the generate scenario runs it (scenario.h): a prefill executable
// built for the prompt, a decode-step executable built for one token over a cache of
// prompt + gen rows, the caches handed from one to the other once, and each decode step run at
// its position (Executable::SetPositionShift) with the token the previous step chose. The
// caches are appended to in place: no step copies them.
//
// A decoder topology says what it is by its params and layers: `prompt` (tokens of one
// inference), `past` (tokens already cached), `gen` (tokens to decode), optionally `context`
// (the most positions it has), and kv_cache layers; its first input takes the token ids, an
// input named `positions` each token's position.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ntpbench/backend.h"
#include "ntpbench/error.h"
#include "ntpbench/resolve.h"

namespace ntpb::bench {

struct GenerationShape {
  int64_t prompt = 0, gen = 0;
  int64_t capacity() const { return prompt + gen; }
};

// The prompt and gen a resolved decoder asks for; throws ntpb::Error naming the param that
// makes no generation (no kv_cache, gen 0, a prompt longer than the context).
inline GenerationShape GenerationShapeOf(const ResolvedTopology& t) {
  auto param = [&](const char* name) -> int64_t {
    auto it = t.params.find(name);
    if (it == t.params.end()) {
      throw Error(t.file, "", std::string("params.") + name,
                  std::string("--scenario generate needs a decoder with the param '") + name +
                      "' (prompt, past and gen: docs/topology-format.md, kv_cache)");
    }
    return it->second;
  };
  GenerationShape s{param("prompt"), param("gen")};
  if (const int64_t past = param("past"); past != 0) {
    throw Error(t.file, "", "params.past",
                "--scenario generate sets it itself (0 for the prefill, then each decode step's "
                "position); got " +
                    std::to_string(past) + ": leave it out");
  }
  if (s.prompt < 1) {
    throw Error(t.file, "", "params.prompt",
                "must be at least 1 for --scenario generate, got " + std::to_string(s.prompt));
  }
  if (s.gen < 1) {
    throw Error(
        t.file, "", "params.gen",
        "must be at least 1 (the tokens decoded after the prompt), got " + std::to_string(s.gen));
  }
  if (auto context = t.params.find("context");
      context != t.params.end() && s.capacity() > context->second) {
    throw Error(t.file, "", "params.prompt",
                "prompt " + std::to_string(s.prompt) + " + gen " + std::to_string(s.gen) +
                    " is more than the context of " + std::to_string(context->second) +
                    " positions");
  }
  const bool caches = std::any_of(t.layers.begin(), t.layers.end(),
                                  [](const ResolvedLayer& l) { return l.op == "kv_cache"; });
  if (!caches) {
    throw Error(t.file, "", "layers",
                "--scenario generate needs kv_cache layers: without them a decode step sees "
                "only its own token");
  }
  return s;
}

// The params of the prefill (the prompt after nothing) and of a decode step (one token; built
// for the last step's position, earlier steps run shifted back).
inline ParamEnv PrefillParams(ParamEnv values, const GenerationShape& s) {
  values["prompt"] = s.prompt;
  values["past"] = 0;
  return values;
}
inline ParamEnv DecodeParams(ParamEnv values, const GenerationShape& s) {
  values["prompt"] = 1;
  values["past"] = s.capacity() - 1;
  return values;
}

// Copies each kv_cache's rows from the prefill into the decode step's larger cache, once, before
// the first decode step: a serving engine's one cache seen by two executables (not timed).
inline void HandOverCaches(const ResolvedTopology& prefill_topology, const Executable& prefill,
                           const ResolvedTopology& decode_topology, Executable& decode) {
  for (const ResolvedLayer& l : decode_topology.layers) {
    if (l.op != "kv_cache") continue;
    const Shape& to = l.output_shapes[0];
    const Shape& from = prefill_topology.shapes.at(l.outputs[0]);
    const std::vector<float> rows = prefill.ReadTensor(l.outputs[0]);
    std::vector<float> cache(static_cast<size_t>(NumElements(to)), 0.0f);
    const int64_t item = from[1] * from[2];
    for (int64_t n = 0; n < from[0]; ++n) {
      std::copy(rows.begin() + n * item, rows.begin() + (n + 1) * item,
                cache.begin() + n * to[1] * to[2]);
    }
    decode.WriteTensor(l.outputs[0], cache);
  }
}

// Writes each token's position, from `first`, to an input named `positions` where there is one.
inline void WritePositions(const ResolvedTopology& t, Executable& exe, int64_t first) {
  for (const auto& [name, shape] : t.inputs) {
    if (name != "positions") continue;
    std::vector<float> positions(static_cast<size_t>(NumElements(shape)));
    for (size_t i = 0; i < positions.size(); ++i) {
      positions[i] = static_cast<float>(first + static_cast<int64_t>(i) % shape.back());
    }
    exe.WriteTensor(name, positions);
  }
}

// Writes `tokens` ([N, S] ids) to the first input and their positions, from `first`.
inline void WriteTokens(const ResolvedTopology& t, Executable& exe,
                        const std::vector<float>& tokens, int64_t first) {
  exe.WriteTensor(t.inputs.begin()->first, tokens);
  WritePositions(t, exe, first);
}

// The next token of each of `batch` sequences: the argmax of its logits (greedy decoding).
inline std::vector<float> GreedyTokens(const std::vector<float>& logits, int64_t batch) {
  const size_t vocab = logits.size() / static_cast<size_t>(batch);
  std::vector<float> tokens(static_cast<size_t>(batch));
  for (size_t n = 0; n < tokens.size(); ++n) {
    const auto row = logits.begin() + static_cast<std::ptrdiff_t>(n * vocab);
    tokens[n] =
        static_cast<float>(std::max_element(row, row + static_cast<std::ptrdiff_t>(vocab)) - row);
  }
  return tokens;
}

}  // namespace ntpb::bench
