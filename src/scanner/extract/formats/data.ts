import { parseAllDocuments, parseDocument } from "yaml";
import { parse as parseToml } from "smol-toml";
import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";
import { walkStructured } from "../walkStructured.ts";
import { relaxJson } from "../relaxedJson.ts";
import { LazyJson } from "../lazyJson.ts";
import { parseNativeYaml } from "./nativeYaml.ts";

/** Structured files above this size are sniffed before parsing whole (a 4 MB JSON of numbers costs ~50 MB of heap). */
const SNIFF_ABOVE = 1024 * 1024;
const SNIFF_WINDOWS = 16;
const SNIFF_WINDOW = 16 * 1024;

const YAML_SLICE = 128 * 1024;

/**
 * Consecutive top-level entries (lines starting at column 0 with `- ` or `key:`), cut into slices of
 * about `size` characters: each slice is valid YAML on its own (indented lines belong to the entry above).
 */
function* topLevelSlices(content: string, size: number): Generator<string> {
  let start = 0;
  let pos = 0;
  while (pos < content.length) {
    let next = content.indexOf("\n", pos);
    next = next < 0 ? content.length : next + 1;
    if (next - start >= size && next < content.length) {
      const c = content.charCodeAt(next);
      // Cut before the next line when it starts a top-level entry (not indented, not a comment or blank).
      if (c !== 32 && c !== 9 && c !== 35 && c !== 10 && c !== 13) {
        yield content.slice(start, next);
        start = next;
      }
    }
    pos = next;
  }
  if (start < content.length) yield content.slice(start);
}

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
  if (text.length > SNIFF_ABOVE) {
    // To bound memory: a big file is read a container at a time (lazyJson.ts), never parsed whole.
    walkStructured(LazyJson.of(relaxJson(text)), out, { objectKind: "json-object", stringKind: "json-string" });
    return;
  }
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
  // A large single-document file is parsed a slice of top-level entries at a time: the yaml
  // library's document model costs ~20× the text (an 8 MB file peaked 150 MB over the baseline).
  if (content.length > SNIFF_ABOVE && !/^(?:%|---)|\n(?:---|\.\.\.)\s*(?:\n|$)/.test(content)) {
    for (const slice of topLevelSlices(content, YAML_SLICE)) {
      const native = parseNativeYaml(slice);
      if (native) {
        walkStructured(native.value, out, { objectKind: "yaml-object", stringKind: "yaml-string" });
        out.work(slice.length);
        continue;
      }
      const doc = parseDocument(slice, { uniqueKeys: false });
      if (doc.errors.length) {
        out.skip(`lines from "${slice.slice(0, 40).split("\n")[0]}"`, SKIP.parse(doc.errors[0].message));
        continue;
      }
      walkStructured(doc.toJS({ maxAliasCount: 1000 }), out, { objectKind: "yaml-object", stringKind: "yaml-string" });
      out.work(slice.length);
    }
    return;
  }
  const native = parseNativeYaml(content);
  if (native) {
    walkStructured(native.value, out, { objectKind: "yaml-object", stringKind: "yaml-string" });
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
