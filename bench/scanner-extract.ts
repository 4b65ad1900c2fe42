/**
 * Extraction and classification alone over the real-project corpus (bench/scanner-corpus.ts), no
 * server, no storage: where the scanner's own CPU goes, per extension and per file.
 *
 *   bun bench/scanner-extract.ts [project,project…]      # TOP=1 lists the slowest files and the most candidates
 */
import { PROJECTS, corpusRoot } from "./scanner-corpus.ts";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { classify, decodeText, extractFile, planScan } from "../src/scanner/extract/index.ts";
const root = corpusRoot();
const projects = process.argv[2]?.split(",") ?? PROJECTS.map((p) => p.name);
function walk(d: string, out: string[] = []) { for (const e of readdirSync(d, { withFileTypes: true })) { const p = join(d, e.name); e.isDirectory() ? walk(p, out) : out.push(p); } return out; }
const files = projects.flatMap((p) => walk(join(root, p))).map((f) => ({ rel: relative(root, f), bytes: new Uint8Array(readFileSync(f)) }));
const plan = planScan(files.map((f) => f.rel));
import { isUnitySharedTableData, readSharedKeys, stringTableCollection } from "../src/scanner/extract/formats/unityStringTable.ts";
const keys = new Map<string, Map<string, string>>();
for (const f of files) if (f.rel.endsWith("Shared Data.asset")) { const c = decodeText(f.bytes); if (isUnitySharedTableData(c)) keys.set(stringTableCollection(c)!, readSharedKeys(c)); }
const opts = { ...plan, stringTableKeys: (c: string) => keys.get(c) };
const byExt = new Map<string, { ms: number; bytes: number; n: number; cand: number }>();
const perFile: [string, number, number][] = [];
let total = 0, bytes = 0, cands = 0;
const t0 = performance.now();
for (const f of files) {
  if (plan.skipKind(f.rel) || plan.translationOf(f.rel)) continue;
  const a = performance.now();
  const ex = extractFile(f.rel, decodeText(f.bytes), { ...opts, hasInkSource: plan.hasInkSourceFor(f.rel), hasTweeSource: plan.hasTweeSourceFor(f.rel) });
  const c = classify(ex.sections, { tags: ["history", "war", "magic", "ring", "Over"], locations: ["Wren", "Bletchley", "Daggerfall", "Over"] });
  const ms = performance.now() - a;
  const ext = f.rel.slice(f.rel.lastIndexOf("."));
  const e = byExt.get(ext) ?? { ms: 0, bytes: 0, n: 0, cand: 0 };
  e.ms += ms; e.bytes += f.bytes.length; e.n++; e.cand += c.length; byExt.set(ext, e);
  perFile.push([f.rel, ms, c.length]); if (process.env.SHOW && f.rel.includes(process.env.SHOW)) for (const x of c.slice(0, 25)) console.log(`  [${x.title}] ${x.text.replace(/\s+/g, " ").slice(0, 120)}`);
  bytes += f.bytes.length; cands += c.length;
}
total = performance.now() - t0;
const allBytes = files.reduce((s, f) => s + f.bytes.length, 0);
console.log(`scanned ${(bytes / 1e6).toFixed(1)} of ${(allBytes/1048576).toFixed(1)} MiB in ${total.toFixed(0)} ms; ${cands} candidates = ${(cands / (allBytes / 1048576)).toFixed(1)}/MB`);
for (const [ext, e] of [...byExt].sort((a, b) => b[1].ms - a[1].ms)) console.log(ext.padEnd(8), e.n, (e.bytes / 1e6).toFixed(2) + "MB", e.ms.toFixed(0) + "ms", e.cand + " cand");
if (process.env.TOP) { console.log("-- slowest"); for (const [p, ms, c] of perFile.sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(ms.toFixed(0).padStart(6), c, p); console.log("-- most candidates"); for (const [p, ms, c] of perFile.sort((a, b) => b[2] - a[2]).slice(0, 40)) console.log(String(c).padStart(6), p); }
