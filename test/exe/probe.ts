/**
 * Probe entry for the executable test (test/exe/build.test.ts): exercises
 * every native dependency the way the server will, then prints ONE JSON line
 * { ok, checks: { <name>: { ok, ... } }, native, totalMs }.
 *
 *   probe [model.gguf] [embedding-model-dir]
 *
 * With a GGUF path it also loads the model and generates a few tokens; with a
 * transformers.js model folder (config.json, tokenizer.json, onnx/model.onnx)
 * it also embeds a sentence through a feature-extraction pipeline.
 */
import "../../src/runtime/native.ts"; // must stay first: sets the native paths before the libraries load

import { Database } from "bun:sqlite";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { nativeInfo } from "../../src/runtime/native.ts";
import { tinyAddModel } from "../support/tinyOnnx.ts";

type Check = { ok: boolean; error?: string; [key: string]: unknown };

const work = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-probe-"));
const args = process.argv.slice(2);
const modelPath = args.find((a) => a.endsWith(".gguf"));
const embeddingModelDir = args.find((a) => fs.existsSync(path.join(a, "config.json")));
const checks: Record<string, Check> = {};

async function check(name: string, run: () => Promise<Record<string, unknown>> | Record<string, unknown>): Promise<void> {
  const started = performance.now();
  try {
    checks[name] = { ok: true, ...(await run()), ms: Math.round(performance.now() - started) };
  } catch (e) {
    checks[name] = { ok: false, error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}

/** Shared objects this process has mapped whose path matches: shows where each .node really came from. */
function mapped(pattern: RegExp): string[] {
  const lines = fs.readFileSync("/proc/self/maps", "utf8").split("\n");
  // Bun unlinks the copy it extracts for an embedded .node right after loading it: maps then say "(deleted)".
  const paths = lines.filter((l) => l.includes("/")).map((l) => l.slice(l.indexOf("/")));
  return [...new Set(paths.filter((p) => pattern.test(p.replace(/ \(deleted\)$/, ""))))];
}

await check("sqlite", () => {
  const db = new Database(path.join(work, "probe.sqlite"), { create: true, strict: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("CREATE TABLE npc (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  db.run("INSERT INTO npc (name) VALUES (?), (?)", ["Mira", "Tobb"]);
  const rows = db.query("SELECT name FROM npc ORDER BY id").all() as { name: string }[];
  const journal = (db.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode;
  db.close();
  if (rows.map((r) => r.name).join() !== "Mira,Tobb") throw new Error(`unexpected rows ${JSON.stringify(rows)}`);
  return { rows: rows.length, journal };
});

await check("lancedb", async () => {
  const lancedb = await import("@lancedb/lancedb");
  const arrow = await import("apache-arrow");
  const schema = new arrow.Schema([
    new arrow.Field("id", new arrow.Utf8(), false),
    new arrow.Field("vector", new arrow.FixedSizeList(4, new arrow.Field("item", new arrow.Float32(), true)), false),
    new arrow.Field("tags", new arrow.List(new arrow.Field("item", new arrow.Utf8(), true)), true),
  ]);
  const db = await lancedb.connect(path.join(work, "lance"));
  const table = await db.createTable(
    "lore",
    [
      { id: "harbor", vector: [1, 0, 0, 0], tags: ["town", "sea"] },
      { id: "forge", vector: [0.9, 0.1, 0, 0], tags: ["town", "smith"] },
      { id: "crypt", vector: [0, 0, 1, 0], tags: ["dungeon"] },
    ],
    { schema },
  );
  const hits = await table.vectorSearch([1, 0, 0, 0]).where("array_has_any(tags, ['sea', 'dungeon'])").limit(5).toArray();
  const ids = hits.map((h: { id: string }) => h.id);
  if (ids.join() !== "harbor,crypt") throw new Error(`unexpected hits ${JSON.stringify(ids)}`);
  const tagsType = String((await table.schema()).fields.find((f) => f.name === "tags")?.type);
  table.close();
  db.close();
  return { hits: ids, tagsType, nativeFrom: mapped(/lancedb.*\.node$|[\\/]\.bun-[^\\/]*\.node$/) };
});

await check("llama", async () => {
  const { getLlama, LlamaCompletion, TokenBias } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never", logLevel: "error" as never });
  const result: Record<string, unknown> = { gpu: llama.gpu, buildType: llama.buildType, nativeFrom: mapped(/llama-addon\.node$/) };
  if (!modelPath) return { ...result, model: "skipped (no GGUF path given)" };
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize: 256, threads: 2 });
  const completion = new LlamaCompletion({ contextSequence: context.getSequence() });
  // Random weights may pick end-of-generation at once; forbid it so N tokens really run.
  const bias = new TokenBias(model.tokenizer);
  for (const token of [model.tokens.eos, model.tokens.eot].filter((t) => t != null)) bias.set(token!, "never");
  let generated = 0;
  const started = performance.now();
  await completion.generateCompletion("Once upon a time", {
    maxTokens: 8,
    tokenBias: bias,
    onToken: (tokens) => (generated += tokens.length),
  });
  const genMs = performance.now() - started;
  const threads = context.currentThreads;
  await context.dispose();
  await model.dispose();
  await llama.dispose();
  if (generated < 8) throw new Error(`generated only ${generated} tokens`);
  return { ...result, model: path.basename(modelPath), tokens: generated, threads, tokensPerSecond: Math.round(generated / (genMs / 1000)) };
});

await check("transformers", async () => {
  const transformers = await import("@huggingface/transformers");
  transformers.env.allowRemoteModels = false;
  transformers.env.localModelPath = path.join(work, "models");
  transformers.env.cacheDir = path.join(work, "hf-cache");
  let missingModel = "";
  try {
    await transformers.pipeline("feature-extraction", "no-such-model");
    throw new Error("loading a missing model succeeded");
  } catch (e) {
    missingModel = (e as Error).message;
  }
  // Must fail for the model, not for the library (e.g. a missing binding or sharp).
  if (!/could not locate|not found|no such file|ENOENT/i.test(missingModel)) throw new Error(`unexpected error for a missing model: ${missingModel}`);
  if (!embeddingModelDir) return { missingModel: missingModel.slice(0, 160), embedding: "skipped (no model folder given)" };
  const extractor = await transformers.pipeline("feature-extraction", path.resolve(embeddingModelDir), { local_files_only: true, device: "cpu" });
  const output = await extractor(["the innkeeper greets you"], { pooling: "mean", normalize: true });
  const dims = Number(output.dims.at(-1));
  const norm = Math.hypot(...(output.data as Float32Array));
  await extractor.dispose();
  if (!(dims > 0) || Math.abs(norm - 1) > 1e-3) throw new Error(`bad embedding: dims ${dims}, norm ${norm}`);
  return { missingModel: missingModel.slice(0, 160), embedding: { dims, norm: Math.round(norm * 1000) / 1000 } };
});

await check("onnxruntime", async () => {
  const ort = await import("onnxruntime-node");
  let missingFile = "";
  try {
    await ort.InferenceSession.create(path.join(work, "missing.onnx"));
    throw new Error("creating a session for a missing file succeeded");
  } catch (e) {
    missingFile = (e as Error).message;
  }
  if (!/no such file|not exist|ENOENT|failed to load|load model/i.test(missingFile)) throw new Error(`unexpected error for a missing model file: ${missingFile}`);
  const session = await ort.InferenceSession.create(tinyAddModel());
  const out = await session.run({ x: new ort.Tensor("float32", Float32Array.from([1, 2, 3, 4]), [1, 4]) });
  const y = Array.from(out.y!.data as Float32Array);
  await session.release();
  if (y.join() !== "2,4,6,8") throw new Error(`x + x gave ${y.join()}`);
  return { missingFile: missingFile.slice(0, 160), computed: y, nativeFrom: mapped(/onnxruntime_binding\.node$/) };
});

fs.rmSync(work, { recursive: true, force: true });
const ok = Object.values(checks).every((c) => c.ok);
console.log(JSON.stringify({ ok, checks, native: nativeInfo(), totalMs: Math.round(performance.now()) }));
process.exit(ok ? 0 : 1);
