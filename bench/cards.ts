/**
 * SillyTavern cards (issue 16): reading a card PNG vs the same card as JSON, a first import vs a re-import
 * (idempotent: nothing changes), exporting, and refusing a decompression bomb (time and memory).
 *   bun bench/cards.ts [entries=1000]
 */
import { deflateSync } from "node:zlib";
import { cardToPng, exportCard } from "../src/cards/exportCard.ts";
import { importCardBytes } from "../src/cards/importCard.ts";
import { readCardBytes } from "../src/cards/readCardBytes.ts";
import { writeCardPng, base64Utf8 } from "../src/cards/png/writeCardPng.ts";
import { ManualClock } from "../src/core/clock.ts";
import { openDatabase } from "../src/db/openDatabase.ts";
import { createProject } from "../src/projects/projectService.ts";
import { chunk } from "../src/cards/png/writeCardPng.ts";

const N = Number(process.argv[2] ?? 1000);
const words = "harbor lantern fleet tide ghost smuggler kraken selkie lighthouse oil storm bay reef gull net salt".split(" ");
const text = (i: number, n: number) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(" ");
const card = {
  spec: "chara_card_v2",
  spec_version: "2.0",
  data: {
    name: "Mira Ashgrove", description: text(1, 200), personality: text(2, 40), scenario: text(3, 30), first_mes: "Hello.", mes_example: "",
    creator_notes: "", system_prompt: "", post_history_instructions: "", alternate_greetings: [], tags: [], creator: "", character_version: "", extensions: {},
    character_book: { entries: Array.from({ length: N }, (_, i) => ({ keys: [words[i % words.length], `place${i}`], content: text(i, 70), extensions: {}, enabled: true, insertion_order: i, id: i })) },
  },
};
const json = new TextEncoder().encode(JSON.stringify(card));
const png = writeCardPng({ chara: base64Utf8(JSON.stringify(card)) });

function time(label: string, runs: number, f: () => unknown): number {
  f();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) f();
  const ms = (performance.now() - t0) / runs;
  console.log(`${label.padEnd(44)} ${ms.toFixed(2).padStart(9)} ms`);
  return ms;
}

console.log(`card: ${N} lorebook entries; JSON ${(json.length / 1024).toFixed(0)} KB, PNG ${(png.length / 1024).toFixed(0)} KB`);
const parseJson = time("read JSON card", 20, () => readCardBytes(json));
const parsePng = time("read PNG card (chunks, CRC, base64)", 20, () => readCardBytes(png));
const ctx = { db: openDatabase(":memory:"), clock: new ManualClock() };
const p = createProject(ctx, { name: "bench" }).id;
let t0 = performance.now();
const r = importCardBytes(ctx, png, { projectId: p });
const first = performance.now() - t0;
console.log(`${"first import (PNG)".padEnd(44)} ${first.toFixed(2).padStart(9)} ms`);
const again = time("re-import, unchanged (PNG)", 5, () => importCardBytes(ctx, png, { projectId: p }));
const exp = time("export as Card V2 + PNG", 5, () => cardToPng(exportCard(ctx, p, r.mindId!)));

const bomb = writeCardPngWithBomb();
Bun.gc(true);
const rss0 = process.memoryUsage().rss;
t0 = performance.now();
try {
  readCardBytes(bomb);
} catch {}
const bombMs = performance.now() - t0;
const rss = process.memoryUsage().rss - rss0;
console.log(`${"refuse a zTXt bomb (256 KB → 256 MB)".padEnd(44)} ${bombMs.toFixed(2).padStart(9)} ms, RSS +${(rss / 1048576).toFixed(0)} MB`);
console.log(`ratios: PNG/JSON read ${(parsePng / parseJson).toFixed(2)}, re-import/first import ${(again / first).toFixed(2)}, export/first import ${(exp / first).toFixed(2)}`);

function writeCardPngWithBomb(): Uint8Array {
  const base = writeCardPng({}, { width: 2, height: 2 });
  const z = chunk("zTXt", Buffer.concat([Buffer.from("chara\0\0", "latin1"), deflateSync(Buffer.alloc(256 * 1024 * 1024, 0x41), { level: 9 })]));
  return Buffer.concat([base.subarray(0, 33), z, base.subarray(33)]);
}
