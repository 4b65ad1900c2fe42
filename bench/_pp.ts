import { getLlama, LlamaLogLevel } from "node-llama-cpp";
const llama = await getLlama({ gpu: false, logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: `/tmp/exp/qwen-q4_0.gguf` });
const toks = model.tokenize("the old guard of the north gate knows every road and river in the king's land ".repeat(100)).slice(0, 1500);
for (const fa of [false, true, false, true]) {
  const ctx = await model.createContext({ contextSize: 2048, sequences: 4, threads: 2, flashAttention: fa });
  const s = ctx.getSequence();
  const t = performance.now();
  await s.evaluateWithoutGeneratingNewTokens(toks);
  const ms = performance.now() - t;
  // follow-up: 120 more tokens at the end of a long context
  const t2 = performance.now();
  await s.evaluateWithoutGeneratingNewTokens(toks.slice(0, 120));
  console.log(`FA ${fa}: 1500-token prompt ${ms.toFixed(0)} ms (${(1500 / ms * 1000).toFixed(0)} tok/s); +120 tokens ${(performance.now() - t2).toFixed(0)} ms`);
  await ctx.dispose();
}
