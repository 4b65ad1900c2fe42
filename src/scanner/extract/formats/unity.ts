import { parse as parseYaml } from "yaml";
import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";
import { walkStructured } from "../walkStructured.ts";

const DOC_HEADER_RE = /^--- !u!(\d+) &(-?\d+)(?: stripped)?[ \t]*$/;
/**
 * Class IDs whose documents can hold authored text: 114 MonoBehaviour (ScriptableObjects,
 * UI Text, TextMeshPro, dialogue components) and 102 TextMesh. Transforms, renderers,
 * meshes etc. are never parsed, which keeps multi-megabyte scenes fast.
 */
const TEXT_CLASSES = new Set(["114", "102"]);
const GAME_OBJECT = "1";
/** Engine bookkeeping, never lore. */
const IGNORED_KEYS = new Set(["script", "gameobject", "prefabinstance", "prefabasset", "correspondingsourceobject", "editorclassidentifier", "objecthideflags", "editorhideflags", "fontasset", "sharedmaterial", "material", "fontsharedmaterials"]);

/**
 * Unity text-serialized assets (.asset .prefab .unity .playable): documents headed
 * `--- !u!<classID> &<fileID>`. The `%YAML`/`%TAG` directives and `!u!` tags that a plain YAML
 * parse rejects are cut off and each document body parsed alone. A component without its own
 * m_Name is titled by its GameObject's name.
 */
export function extractUnity(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  const docs: { classId: string; fileId: string; start: number; end: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = DOC_HEADER_RE.exec(lines[i]);
    if (m) {
      if (docs.length) docs[docs.length - 1].end = i;
      docs.push({ classId: m[1], fileId: m[2], start: i + 1, end: lines.length });
    }
  }
  if (docs.length === 0) {
    out.skipFile(SKIP.parse("not a Unity text-serialized file (no --- !u! document headers; binary serialization or Force Text off?)"));
    return;
  }

  // GameObject names by fileID: a line scan, no YAML parse needed.
  const objectNames = new Map<string, string>();
  for (const d of docs) {
    if (d.classId !== GAME_OBJECT) continue;
    for (let i = d.start; i < d.end; i++) {
      const m = /^\s+m_Name:\s*(.*)$/.exec(lines[i]);
      if (m) {
        const name = m[1].trim().replace(/^(["'])(.*)\1$/, "$2");
        if (name) objectNames.set(canonicalId(d.fileId), name);
        break;
      }
    }
  }

  for (const d of docs) {
    if (!TEXT_CLASSES.has(d.classId)) continue;
    const body = lines.slice(d.start, d.end).join("\n");
    // The yaml parser costs ~0.3 ms per document; most components hold no words at all.
    if (!mayHoldProse(body)) continue;
    let data: unknown;
    try {
      data = parseYaml(body, { uniqueKeys: false, intAsBigInt: true }); // fileIDs exceed 2^53
    } catch (e) {
      out.skip(`document &${d.fileId}`, SKIP.parse((e as Error).message));
      continue;
    }
    if (!data || typeof data !== "object") continue;
    // The document is `{ ClassName: { fields… } }`.
    const fields = Object.values(data as Record<string, unknown>)[0];
    if (!fields || typeof fields !== "object") continue;
    const goRef = (fields as Record<string, unknown>).m_GameObject as { fileID?: unknown } | undefined;
    const rootTitle = goRef && goRef.fileID !== undefined ? (objectNames.get(canonicalId(String(goRef.fileID))) ?? null) : null;
    walkStructured(fields, out, {
      objectKind: "unity-text",
      stringKind: "unity-text",
      rootTitle,
      ignoreKey: (k) => IGNORED_KEYS.has(k),
      quietObjects: true,
    });
  }
}

function canonicalId(id: string): string {
  return /^-?\d+$/.test(id) ? BigInt(id).toString() : id;
}

/** Three words in a row, or any non-ASCII / \u-escaped text (Unity escapes non-ASCII strings). */
function mayHoldProse(body: string): boolean {
  if (/[^\x00-\x7f]|\\u[0-9A-Fa-f]{4}/.test(body)) return true;
  let run = 0;
  for (const token of body.split(/\s+/)) {
    if (/^['"]?[A-Za-z][a-z'-]*[.,!?;'"]?$/.test(token) && !token.endsWith(":")) {
      if (++run >= 3) return true;
    } else run = 0;
  }
  return false;
}
