import { join } from "node:path";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { EmbedderThreads } from "../src/vectors/threads/EmbedderThreads.ts";
import { writeTinyOnnxModel } from "../test/support/tinyOnnx.ts";
const root = mkdtempSync(join(tmpdir(), "thr-"));
const tiny = join(root, "tiny"), heavy = join(root, "heavy");
writeTinyOnnxModel(tiny, { dims: 32 });
writeTinyOnnxModel(heavy, { dims: 256, layers: 4 });
const names = () => readdirSync("/proc/self/task").map((t) => readFileSync(`/proc/self/task/${t}/comm`, "utf8").trim()).sort();
const warm = await EmbedderThreads.load(tiny, { count: 1 });
await warm.embed(["warm"]);
await warm.dispose();
await Bun.sleep(200);
const before = names();
console.log(before.length, before.join(","));
const LONG = Array.from({ length: 60 }, (_, i) => `dragon ${i} gold mountain road king queen `.repeat(80));
for (let r = 0; r < Number(process.argv[2] ?? 12); r++) {
  const pool = await EmbedderThreads.load(heavy, { count: 2 });
  const batch = pool.embed(LONG).catch((e) => e);
  await pool.embed(["where is the dragon"]);
  await Bun.sleep(Math.random() * 40);
  await pool.dispose();
  await batch;
  await Bun.sleep(300);
  const now = names();
  console.log(r, now.length, now.length !== before.length ? now.join(",") : "");
}
