// Times one ONNX model on ONNX Runtime's CPU provider, for tools/compare_ort.py.
//
//   node tools/ort_time.js REQUEST.json
//
// REQUEST: {"model": PATH, "threads": N, "min_time": SECONDS,
//           "inputs": [{"name", "dims": [...], "type": "float32"|"int64"}],
//           "profile": PATH or null}
// Prints one JSON object on stdout: {"ort": version, "samples_ms": [...]}; with a profile prefix
// ONNX Runtime also writes its profile as PREFIX_<date>_<time>.json.
// The session is ONNX Runtime's fastest CPU setting for one request at a time: every graph
// optimisation, sequential execution, N intra-op threads (the caller's and N - 1 more), one
// inter-op thread. Inputs are random (the time does not depend on the values); token ids stay 0.
// onnxruntime-node is found through NODE_PATH (compare_ort.py sets it to the --ort folder).
"use strict";
const fs = require("fs");
const ort = require("onnxruntime-node");

async function main() {
  const request = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
  const options = {
    graphOptimizationLevel: "all",
    executionMode: "sequential",
    intraOpNumThreads: request.threads,
    interOpNumThreads: 1,
    enableCpuMemArena: true,
    enableMemPattern: true,
  };
  if (request.profile) {
    options.enableProfiling = true;
    options.profileFilePrefix = request.profile;
  }
  const session = await ort.InferenceSession.create(request.model, options);
  const feeds = {};
  for (const input of request.inputs) {
    const count = input.dims.reduce((a, b) => a * b, 1);
    if (input.type === "int64") {
      feeds[input.name] = new ort.Tensor("int64", new BigInt64Array(count), input.dims);
    } else {
      const data = new Float32Array(count);
      for (let i = 0; i < count; ++i) data[i] = Math.random() - 0.5;
      feeds[input.name] = new ort.Tensor("float32", data, input.dims);
    }
  }
  for (let i = 0; i < 3; ++i) await session.run(feeds);  // warm-up: arena, caches, pool
  const samples = [];
  const start = performance.now();
  while (performance.now() - start < request.min_time * 1e3 || samples.length < 5) {
    const t0 = performance.now();
    await session.run(feeds);
    samples.push(performance.now() - t0);
  }
  if (request.profile) session.endProfiling();  // writes PREFIX_<date>_<time>.json
  await session.release();
  process.stdout.write(JSON.stringify({ort: ort.env.versions.common, samples_ms: samples}));
}

main().catch((e) => {
  process.stderr.write("ort_time.js: " + (e && e.message ? e.message : e) + "\n");
  process.exit(1);
});
