import { parseAllDocuments } from "yaml";
import { parse as parseToml } from "smol-toml";
import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";
import { walkStructured } from "../walkStructured.ts";
import { relaxJson } from "../relaxedJson.ts";

/** Structured files above this size are sniffed before parsing whole (a 4 MB JSON of numbers costs ~50 MB of heap). */
const SNIFF_ABOVE = 1024 * 1024;
const SNIFF_WINDOWS = 16;
const SNIFF_WINDOW = 16 * 1024;

/**
 * A large JSON/YAML is parsed only when windows spread over it hold a run of three words
 * (prose); meshes, tile maps, number tables and save data are skipped unparsed.
 */
export function mayHoldProse(content: string): boolean {
  if (content.length <= SNIFF_ABOVE) return true;
  const step = Math.floor((content.length - SNIFF_WINDOW) / (SNIFF_WINDOWS - 1));
  for (let k = 0; k < SNIFF_WINDOWS; k++) {
    const w = content.slice(k * step, k * step + SNIFF_WINDOW);
    if (/[A-Za-z\u00c0-\u024f]{2,}[ ,;]+[A-Za-z\u00c0-\u024f]{2,}[ ,;]+[A-Za-z\u00c0-\u024f]{2,}/.test(w)) return true;
  }
  return false;
}

export function extractJson(content: string, out: SectionCollector): void {
  if (!mayHoldProse(content)) {
    out.skipFile(SKIP.noProse);
    return;
  }
  let data: unknown;
  const text = content.replace(/^\uFEFF/, "");
  try {
    data = JSON.parse(text);
  } catch (e) {
    // Comments and trailing commas (editor settings, hand-written data): read again without them.
    try {
      data = JSON.parse(relaxJson(text));
    } catch {
      out.skipFile(SKIP.parse((e as Error).message));
      return;
    }
  }
  walkStructured(data, out, { objectKind: "json-object", stringKind: "json-string" });
}

export function extractYaml(content: string, out: SectionCollector): void {
  if (!mayHoldProse(content)) {
    out.skipFile(SKIP.noProse);
    return;
  }
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    // Duplicate keys (hand-merged files) are read, the last one winning, as most YAML loaders do.
    docs = parseAllDocuments(content, { uniqueKeys: false });
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length) {
      out.skipFile(SKIP.parse(doc.errors[0].message));
      return;
    }
  }
  for (const doc of list) {
    let data: unknown;
    try {
      data = doc.toJS({ maxAliasCount: 1000 });
    } catch (e) {
      out.skipFile(SKIP.parse((e as Error).message));
      return;
    }
    walkStructured(data, out, { objectKind: "yaml-object", stringKind: "yaml-string" });
  }
}

export function extractToml(content: string, out: SectionCollector): void {
  let data: unknown;
  try {
    data = parseToml(content.replace(/^\uFEFF/, ""));
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  walkStructured(data, out, { objectKind: "toml-object", stringKind: "toml-string" });
}
