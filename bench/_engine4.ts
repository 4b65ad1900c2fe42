import { LlmEngine } from "../src/llm/LlmEngine.ts";
const type = process.argv[2] ?? "q4_0";
const P = Number(process.argv[3] ?? 1000);
const engine = await LlmEngine.load({ modelPath: `/tmp/exp/qwen-${type}.gguf`, threads: 2, parallel: 4, contextSize: 2048 });
const ctx: any = (engine as any).context;
let inDecode = 0, decodes = 0;
const real = ctx._ctx;
const orig = real.decodeBatch.bind(real);
const wrapped = async () => { const t = performance.now(); try { return await orig(); } finally { inDecode += performance.now() - t; decodes++; } };
const sizes: number[] = []; (globalThis as any).sizes = sizes;
const times: number[] = []; (globalThis as any).times = times;
const wrapped2 = async () => { const t = performance.now(); try { return await orig(); } finally { const d = performance.now() - t; inDecode += d; times.push(d); decodes++; } };
ctx._ctx = new Proxy(real, { get(t, k) { if (k === "decodeBatch") return wrapped2; if (k === "addToBatch") return (...a: any[]) => { sizes.push("s" + a[0]); return t.addToBatch(...a); }; if (k === "initBatch") return (n: number) => { sizes.push(n); return t.initBatch(n); }; const v = t[k]; return typeof v === "function" ? v.bind(t) : v; } });
const words = "the old guard of the north gate knows every road and river in the king's land ".repeat(200);
const sys = (i: number) => ({ role: "system" as const, content: `Player ${i}. ` + words.slice(0, P * 4) });
const msgs = (i: number, t: string) => [sys(i), { role: "user" as const, content: t }];
for (let i = 0; i < 4; i++) await engine.generate({ conversationKey: `k${i}`, messages: msgs(i, "hello"), maxTokens: 4, minTokens: 4 });
console.log("prompt tokens", engine.countChatTokens(msgs(0, "hello")));
async function measure(n: number) {
  const d0 = inDecode, c0 = decodes, t0 = performance.now();
  const cpu0 = process.cpuUsage(); const elu0 = performance.eventLoopUtilization?.();
  const rs = await Promise.all(Array.from({ length: n }, (_, i) => engine.generate({ conversationKey: `k${i}`, messages: msgs(i, "hello"), maxTokens: 48, minTokens: 48 })));
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0); const elu = performance.eventLoopUtilization?.(elu0);
  console.log(`n=${n} cpu user ${(cpu.user/1000).toFixed(0)} sys ${(cpu.system/1000).toFixed(0)} ms over wall ${wall.toFixed(0)}; ELU ${elu?.utilization?.toFixed(2)}`); const toks = rs.reduce((a, r) => a + r.completionTokens, 0);
  return { tps: toks / wall * 1000, wall, dec: inDecode - d0, calls: decodes - c0, toks };
}
for (let r = 0; r < 3; r++) {
  const one = await measure(1); sizes.length = 0; times.length = 0; const four = await measure(4);
  console.log("sizes", sizes.join(","), "\ntimes", times.map((x) => x.toFixed(0)).join(","));
  console.log(`1: ${one.tps.toFixed(1)} tok/s wall ${one.wall.toFixed(0)} decode ${one.dec.toFixed(0)} (${one.calls} calls)  4: ${four.tps.toFixed(1)} tok/s wall ${four.wall.toFixed(0)} decode ${four.dec.toFixed(0)} (${four.calls} calls, ${four.toks} toks) ratio ${(four.tps / one.tps).toFixed(2)}`);
}
await engine.dispose();
