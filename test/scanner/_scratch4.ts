import { readFileSync, rmSync } from "node:fs";
import { readArchive } from "../../src/scanner/archive/index.ts";
import { classify, decodeText, extractFile } from "../../src/scanner/extract/index.ts";
import { normalizeWords } from "../../src/scanner/extract/text.ts";
const { files } = JSON.parse(readFileSync("/tmp/sb/m.json", "utf8"));
const vocab = { tags: ["general", "history"], locations: ["Docks"] };
const titles = new Map<string, number>();
const sizes = new Map<string, number[]>();
await readArchive("/tmp/sb/g.zip", files, async (f) => {
  const c = classify(extractFile(f.relativePath, decodeText(f.bytes)).sections, vocab);
  for (const x of c) { const k = normalizeWords(x.title); titles.set(k, (titles.get(k) ?? 0) + 1); }
});
const arr = [...titles.entries()].sort((a, b) => b[1] - a[1]);
console.log("distinct", arr.length, "top", arr.slice(0, 10));
