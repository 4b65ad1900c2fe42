import { parseAllDocuments } from "yaml";
import { parse as parseToml } from "smol-toml";
import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";
import { walkStructured } from "../walkStructured.ts";

export function extractJson(content: string, out: SectionCollector): void {
  let data: unknown;
  try {
    data = JSON.parse(content.replace(/^\uFEFF/, ""));
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  walkStructured(data, out, { objectKind: "json-object", stringKind: "json-string" });
}

export function extractYaml(content: string, out: SectionCollector): void {
  let docs: ReturnType<typeof parseAllDocuments>;
  try {
    docs = parseAllDocuments(content);
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
