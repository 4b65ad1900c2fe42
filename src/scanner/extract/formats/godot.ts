import type { SectionCollector } from "../SectionCollector.ts";
import { isTextKey, titleRank, usableTitle } from "../fieldNames.ts";
import { MIN_LETTERS, SKIP, countLetters, looksLikeWords, normalizeKey, stripAngleTags, unescapeBackslashes } from "../text.ts";

interface GodotBlock {
  header: string;
  attrs: Record<string, string>;
  props: { key: string; strings: string[] }[];
}

/**
 * Reads Godot's text resource format: `[section attr=value …]` headers and `key = value`
 * properties whose values may span lines (multi-line strings, arrays, dictionaries).
 * Only string literals are kept from values. Throws on an unterminated string or header.
 */
export function parseGodotText(content: string): GodotBlock[] {
  const s = content.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const n = s.length;
  const blocks: GodotBlock[] = [];
  let cur: GodotBlock = { header: "", attrs: {}, props: [] };
  let i = 0;
  const lineAt = (p: number) => s.slice(0, p).split("\n").length;
  const readString = (): string => {
    // s[i] is the opening quote.
    let j = i + 1;
    while (j < n && s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
    if (j >= n) throw new Error(`unterminated string at line ${lineAt(i)}`);
    const v = unescapeBackslashes(s.slice(i + 1, j));
    i = j + 1;
    return v;
  };
  while (i < n) {
    const c = s[i];
    if (c === "\n" || c === "\r" || c === " " || c === "\t") {
      i++;
    } else if (c === ";") {
      const nl = s.indexOf("\n", i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === "[") {
      const end = s.indexOf("]\n", i);
      const stop = end < 0 ? (s.endsWith("]") ? n - 1 : -1) : end;
      if (stop < 0) throw new Error(`unterminated section header at line ${lineAt(i)}`);
      const inner = s.slice(i + 1, stop);
      const name = /^[\w]+/.exec(inner)?.[0] ?? "";
      const attrs: Record<string, string> = {};
      for (const m of inner.matchAll(/(\w+)=("(?:[^"\\]|\\.)*"|[^\s\]]+)/g)) {
        attrs[m[1]] = m[2].startsWith('"') ? unescapeBackslashes(m[2].slice(1, -1)) : m[2];
      }
      if (cur.header || cur.props.length) blocks.push(cur);
      cur = { header: name, attrs, props: [] };
      i = stop + 1;
    } else {
      // key = value, the value running until brackets balance at a line end.
      const eq = s.indexOf("=", i);
      const nl = s.indexOf("\n", i);
      if (eq < 0 || (nl >= 0 && nl < eq)) throw new Error(`expected "key = value" at line ${lineAt(i)}`);
      const key = s.slice(i, eq).trim().replace(/^"(.*)"$/, "$1");
      i = eq + 1;
      const strings: string[] = [];
      let depth = 0;
      while (i < n) {
        const ch = s[i];
        if (ch === '"') {
          // &"StringName" and ^"NodePath" are identifiers, not text.
          const prefix = s[i - 1];
          const v = readString();
          if (prefix !== "&" && prefix !== "^") strings.push(v);
          continue;
        }
        if (ch === "(" || ch === "[" || ch === "{") depth++;
        else if (ch === ")" || ch === "]" || ch === "}") depth--;
        else if (ch === "\n" && depth <= 0) break;
        i++;
      }
      cur.props.push({ key, strings });
    }
  }
  if (cur.header || cur.props.length) blocks.push(cur);
  return blocks;
}

/**
 * Godot .tres/.tscn: per `[resource]`, `[sub_resource]` or `[node]` block, the text-like
 * properties (text, description, dialogue …) and any other prose string become one section,
 * titled by the node's name or a name/title property. Resource paths and node paths are ignored.
 * Other strings count only at prose length, so UI theme names do not leak into the text.
 */
export function extractGodotResource(content: string, out: SectionCollector): void {
  let blocks: GodotBlock[];
  try {
    blocks = parseGodotText(content);
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  if (!blocks.some((b) => b.header.startsWith("gd_"))) {
    out.skipFile(SKIP.parse("no [gd_resource] or [gd_scene] header"));
    return;
  }
  const headings = headingsByParent(blocks);
  let controls = 0;
  for (const b of blocks) {
    if (b.header !== "resource" && b.header !== "sub_resource" && b.header !== "node") continue;
    // A button, a field or a list of a scene holds UI words, never the world's writing.
    if (b.header === "node" && UI_CONTROL_TYPES.has(b.attrs.type ?? "") && b.props.some((p) => p.strings.length)) {
      controls++;
      continue;
    }
    let title: string | null = usableTitle(b.attrs.name);
    // A node named for its role (Text, Label, Body) is titled by its sibling heading, else by the scene's file.
    if (b.header === "node" && title && GENERIC_NODE.test(normalizeKey(title))) title = headings.get(b.attrs.parent ?? "") ?? out.stem;
    let bestRank = title ? titleRank("name") : Infinity;
    const parts: string[] = [];
    for (const p of b.props) {
      const r = titleRank(p.key);
      if (r >= 0 && p.strings.length === 1) {
        const t = usableTitle(p.strings[0]);
        if (t && r < bestRank) {
          title = t;
          bestRank = r;
        }
        continue;
      }
      const k = normalizeKey(p.key);
      if (k === "script" || k.endsWith("path")) continue;
      for (const str of p.strings) {
        if (isTextKey(p.key) || (looksLikeWords(str) && countLetters(str) >= MIN_LETTERS)) parts.push(stripAngleTags(str).replace(/\[\/?[\w]+(?:=[^\]]*)?\]/g, ""));
      }
    }
    // A scene node's short text is a label of its screen (counted, not listed); a resource's may be a name.
    if (parts.length) out.add({ title, text: parts.join("\n\n"), kind: "godot-text", quiet: true, ui: b.header === "node" });
  }
  if (controls) out.skip(`${controls} controls (buttons, fields, lists)`, SKIP.uiText);
}

// Node names that say what a node does, not what it is about.
const GENERIC_NODE = /^(?:text|label|richtextlabel|textlabel|body|content|description|desc|paragraph|message)\d*$/;
const HEADING_NODE = /^(?:title|heading|header|caption|titlelabel)\d*$/;

/** The text of each parent's heading node ("Title": "Rapport de transmission du 11 août 1945"), by parent path. */
function headingsByParent(blocks: GodotBlock[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const b of blocks) {
    if (b.header !== "node" || !HEADING_NODE.test(normalizeKey(b.attrs.name ?? ""))) continue;
    const text = b.props.find((p) => normalizeKey(p.key) === "text")?.strings[0];
    const t = text ? usableTitle(stripAngleTags(text).replace(/\[\/?[\w]+(?:=[^\]]*)?\]/g, "")) : null;
    if (t && !out.has(b.attrs.parent ?? "")) out.set(b.attrs.parent ?? "", t);
  }
  return out;
}

/** Godot Control nodes whose text is a control's caption or content, not a narrative label. */
const UI_CONTROL_TYPES = new Set([
  "Button", "CheckBox", "CheckButton", "OptionButton", "MenuButton", "LinkButton", "ColorPickerButton", "TextureButton",
  "LineEdit", "TextEdit", "CodeEdit", "SpinBox", "ItemList", "Tree", "TabBar", "TabContainer", "MenuBar", "PopupMenu",
  "FileDialog", "AcceptDialog", "ConfirmationDialog", "HSlider", "VSlider", "ProgressBar", "FoldableContainer",
]);
