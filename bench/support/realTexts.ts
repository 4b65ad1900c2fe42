import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chunkText } from "../../src/lore/chunker.ts";
import { parsePackText } from "../../src/packs/importPack.ts";
import { longChunkWorld } from "./longChunkWorld.ts";
import { TUNING } from "./qualityQuestions.ts";
import { CINDERVALE } from "../worlds/cindervale.questions.ts";

export interface RealText {
  source: "lore" | "question" | "long lore" | "docs";
  text: string;
}

/**
 * Written text, as the chunker cuts it (no generated word salad): the example packs' and the held-out world's lore,
 * the grounding questions, the held-out world at full chunk size (seed 1) and the repository's own docs pages
 * (English prose and tables, chunk-sized). ~300 texts of 5–400 word pieces.
 */
export function realTexts(root: string): RealText[] {
  const out: RealText[] = [];
  const packs = [...readdirSync(join(root, "examples")).filter((f) => f.endsWith(".yaml") && !f.includes(".test.")).map((f) => join("examples", f)), join("bench", "worlds", "cindervale.yaml")];
  for (const file of packs) {
    const pack = parsePackText(readFileSync(join(root, file), "utf8"), file) as { documents?: { content: string }[] };
    for (const d of pack.documents ?? []) for (const c of chunkText(d.content)) out.push({ source: "lore", text: c.content });
  }
  for (const q of [...TUNING.grounding, ...CINDERVALE.grounding]) out.push({ source: "question", text: q.text });
  for (const d of longChunkWorld(1).documents) out.push({ source: "long lore", text: d.content });
  for (const f of readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).sort())
    for (const c of chunkText(readFileSync(join(root, "docs", f), "utf8"))) out.push({ source: "docs", text: c.content });
  return out;
}
