// Hardware ceiling: perfect lock-step batches straight on the addon.
import { getLlama, LlamaLogLevel } from "node-llama-cpp";
import { LlamaSampler } from "../node_modules/node-llama-cpp/dist/evaluator/LlamaContext/LlamaSampler.js";
const type = process.argv[2] ?? "q4_0";
const P = Number(process.argv[3] ?? 1000);
const path = `/tmp/exp/qwen-${type}.gguf`;
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: path });
const ctx: any = await model.createContext({ contextSize: 2048, sequences: 4, threads: Number(process.env.T ?? 2), flashAttention: process.env.FA === "auto" ? "auto" : process.env.FA === "1", ...(process.env.KV ? { experimentalKvCacheKeyType: process.env.KV, experimentalKvCacheValueType: process.env.KV } : {}) } as any);
const c = ctx._ctx;
const base = model.tokenize("the old guard of the north gate knows every road and river in the king's land ".repeat(200));
const seqs = [0, 1, 2, 3].map((i) => ctx.getSequence());
for (const s of seqs) await s.evaluateWithoutGeneratingNewTokens(base.slice(0, P));
const samplers = seqs.map(() => { const s: any = new LlamaSampler(model); s.applyConfig(ctx.getSequence ? {} : {}); return s; });
for (const s of samplers) s.applyConfig({ temperature: 0.7, topK: 40, topP: 0.95, seed: 1, minP: 0 });
async function run(n: number, steps: number) {
  const pos = [P, P, P, P];
  const toks = [1000, 1001, 1002, 1003];
  let tDecode = 0, tSample = 0;
  const t0 = performance.now();
  for (let step = 0; step < steps; step++) {
    const a = performance.now();
    c.initBatch(n);
    const idx: number[] = [];
    for (let i = 0; i < n; i++) idx.push(c.addToBatch(seqs[i]._sequenceId, pos[i]++, Uint32Array.from([toks[i]]), Uint32Array.from([0]))[0]);
    await c.decodeBatch();
    const b = performance.now();
    const res = await Promise.all(idx.map((li, i) => c.sampleToken(li, samplers[i]._sampler)));
    for (let i = 0; i < n; i++) toks[i] = typeof res[i] === "number" ? res[i] : res[i][0];
    tDecode += b - a; tSample += performance.now() - b;
  }
  const ms = performance.now() - t0;
  for (let i = 0; i < n; i++) c.removeTokenCellsFromSequence(seqs[i]._sequenceId, P, -1);
  return { tps: (n * steps * 1000) / ms, decode: tDecode / steps, sample: tSample / steps };
}
for (let r = 0; r < 3; r++) {
  const one = await run(1, 32);
  const four = await run(4, 32);
  const two = await run(2, 32);
  console.log(`${type} P=${P} FA=${process.env.FA ?? 0}: 1 seq ${one.tps.toFixed(1)} tok/s (decode ${one.decode.toFixed(1)} ms, sample ${one.sample.toFixed(1)})  2 seq ${two.tps.toFixed(1)}  4 seq ${four.tps.toFixed(1)} tok/s (decode ${four.decode.toFixed(1)} ms, sample ${four.sample.toFixed(1)})  ratio4 ${(four.tps / one.tps).toFixed(2)} ratio2 ${(two.tps / one.tps).toFixed(2)}`);
}
