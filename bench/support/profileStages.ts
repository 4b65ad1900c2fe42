// Reads a CPU profile (`bun --cpu-prof`, Chrome's .cpuprofile format) of the JS thread: the time of the samples
// between two markers (functions named by the bench, e.g. bench/http-cost.ts's MARKER_BEGIN and MARKER_END), the
// functions with the most self time, and for each function named on the command line its inclusive time (a sample
// counts once for every distinct function on its stack).
// Usage: bun bench/support/profileStages.ts <file.cpuprofile> [--from MARKER_BEGIN] [--to MARKER_END] [--window 1] [--top 40]
//        [--stages prepareTurn,guardRequest,…] [--per 200]   (--per: divide the times by this many requests)
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: "string" },
    to: { type: "string" },
    top: { type: "string", default: "40" },
    stages: { type: "string", default: "" },
    per: { type: "string", default: "1" },
    "cap-us": { type: "string", default: "1000" },
    /** which window between the markers (1: the first) */
    window: { type: "string", default: "1" },
  },
});
const prof = JSON.parse(readFileSync(positionals[0], "utf8")) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: Node) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber + 1}`;
const stack = (id: number): Node[] => {
  const out: Node[] = [];
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) out.push(byId.get(cur)!);
  return out;
};

// sample i lasted timeDeltas[i + 1] (the time until the next sample), but a sample taken after a wait (the thread
// idle, or off its core on a busy box) follows a long delta: each sample counts at most --cap-us, so the sum is
// close to the thread's running time rather than the wall clock
const onStack = (id: number, name: string) => stack(id).some((n) => n.callFrame.functionName === name);
let from = 0;
let to = prof.samples.length;
if (args.from) {
  // the sample after the window-th run of the `from` marker
  let seen = false;
  let left = Number(args.window);
  for (let i = 0; i < prof.samples.length; i++) {
    const on = onStack(prof.samples[i], args.from);
    if (on) seen = true;
    else if (seen && --left === 0) {
      from = i;
      break;
    } else seen = false;
  }
}
if (args.to) for (let i = from; i < prof.samples.length; i++) if (onStack(prof.samples[i], args.to)) {
  to = i;
  break;
}
const per = Number(args.per);
const cap = Number(args["cap-us"]);
const self = new Map<string, number>();
const incl = new Map<string, number>();
const stages = args.stages ? args.stages.split(",") : [];
let total = 0;
let idle = 0;
for (let i = from; i < to; i++) {
  const us = Math.min(prof.timeDeltas[i + 1] ?? 0, cap);
  const node = byId.get(prof.samples[i])!;
  const name = node.callFrame.functionName;
  if (name === "(idle)") {
    idle += us;
    continue;
  }
  total += us;
  self.set(label(node), (self.get(label(node)) ?? 0) + us);
  const names = new Set(stack(prof.samples[i]).map((n) => n.callFrame.functionName));
  for (const s of stages) if (names.has(s)) incl.set(s, (incl.get(s) ?? 0) + us);
}
const ms = (us: number) => (us / 1000 / per).toFixed(3);
console.log(`window: samples ${from}..${to}; busy ${ms(total)} ms, idle ${ms(idle)} ms${per !== 1 ? ` (per request, ÷ ${per})` : ""}`);
if (stages.length) {
  console.log("\ninclusive:");
  for (const s of stages) console.log(`  ${ms(incl.get(s) ?? 0).padStart(9)} ms  ${s}`);
}
console.log("\nself time:");
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(args.top))) console.log(`  ${ms(v).padStart(9)} ms  ${k}`);
