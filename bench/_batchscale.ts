import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { writeTinyGguf, type TinyGgufWeightType } from "../test/support/tinyGguf.ts";
import { existsSync } from "node:fs";
const type = (process.argv[2] ?? "q4_0") as TinyGgufWeightType;
const path = `/tmp/exp/qwen-${type}.gguf`;
if (!existsSync(path)) writeTinyGguf(path, { nEmbd: 896, nLayers: 24, nHeads: 14, nHeadsKv: 2, nFf: 4864, vocabSize: 151936, nCtx: 2048, weightType: type, name: "q" });
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.debug , logger: (l, m) => { if (/cpu|CPU|AMX|repack|buffer/i.test(m)) console.log("[llama]", m.trim()); } });
const model = await llama.loadModel({ modelPath: path });
const ctx = await model.createContext({ contextSize: 2048, sequences: 1, threads: Number(process.env.T ?? 2), batchSize: 512 });
const seq = ctx.getSequence();
const toks = model.tokenize("the old guard of the north gate knows every road and river in the king's land ".repeat(20)).slice(0, 300);
await seq.evaluateWithoutGeneratingNewTokens(toks.slice(0, 200));
let pos = 200;
for (const k of [1, 2, 4, 8, 16, 1, 2, 4, 8, 16]) {
  const reps = 12; const t0 = performance.now();
  for (let r = 0; r < reps; r++) {
    await seq.evaluateWithoutGeneratingNewTokens(toks.slice(pos % 250, pos % 250 + k));
    pos += k;
  }
  const ms = (performance.now() - t0) / reps;
  console.log(type, `batch ${k}: ${ms.toFixed(1)} ms/decode, ${(k * 1000 / ms).toFixed(1)} tok/s`);
  await seq.eraseContextTokenRanges([{ start: 200, end: seq.nextTokenIndex }]);
}
