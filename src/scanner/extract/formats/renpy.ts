import type { SectionCollector } from "../SectionCollector.ts";
import { unescapeBackslashes } from "../text.ts";
import { closeGaps } from "../narrativeText.ts";

const LABEL_RE = /^label\s+([\w.]+)\s*(?:\([^)]*\))?\s*(?:hide\s*)?:/;
const DEFINE_RE = /^\s*define\s+([\w.]+)\s*=\s*Character\(\s*(?:_\()?\s*(["'])((?:\\.|(?!\2).)*)\2/;
const STRING = String.raw`"((?:[^"\\]|\\.)*)"`;
/** `e happy "Hello"` / `"Eileen" "Hello"` / `"Narration"` (optionally `with dissolve`). */
const SAY_RE = new RegExp(String.raw`^\s*(?:(?:"((?:[^"\\]|\\.)*)"|([A-Za-z_]\w*)(?:\s+[\w-]+)*)\s+)?${STRING}(?:\s+with\s+\w+)?\s*$`);
/** A menu choice: `"Ask about the road":` or `"Leave" if gold > 2:`. */
const CHOICE_RE = new RegExp(String.raw`^\s+${STRING}(?:\s+if\s+[^:]+)?\s*:\s*$`);
/** Statements that end in a string but are not speech. */
const NOT_SPEAKERS = new Set(["play", "queue", "stop", "voice", "show", "scene", "hide", "image", "define", "default", "jump", "call", "window", "pause", "return", "translate", "style", "transform", "screen", "init", "python", "label", "menu", "nvl", "extend", "renpy", "config", "at", "with", "sound", "music", "audio", "camera"]);

/** A creator-defined statement's block (`encyclopedia article wyh:`): not one of Ren'Py's own top-level statements. */
const CUSTOM_BLOCK_RE = /^([a-z_]\w*)(?:\s+[\w.]+)+\s*:\s*$/;
const OWN_STATEMENTS = new Set(["label", "init", "screen", "style", "transform", "python", "image", "define", "default", "translate", "menu", "layeredimage", "testcase", "if", "elif", "else", "while", "for"]);
/** `title "Manyaka"` inside such a block. */
const TITLE_RE = new RegExp(String.raw`^\s+(?:title|name)\s+${STRING}\s*$`);

/**
 * Ren'Py: one section per top-level `label name:`; its say lines become "Speaker: text"
 * (speaker names resolved from `define x = Character("Name")`), narration stays plain and
 * menu choices are kept. Text tags ({b}, {w}) and [interpolations] are removed. A creator-defined
 * statement's block (an in-game encyclopedia's `article`) is a section titled by its `title "…"`, its
 * text the block's triple-quoted strings.
 */
export function extractRenpy(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  const speakers = new Map<string, string>();
  for (const line of lines) {
    const d = DEFINE_RE.exec(line);
    if (d) speakers.set(d[1], unescapeBackslashes(d[3]));
  }
  let label: string | null = null;
  let body: string[] = [];
  let custom: { name: string; title: string | null; text: string[]; open: string[] | null } | null = null;
  const flush = () => {
    if (label !== null) out.add({ title: label, text: body.join("\n"), kind: "renpy-label" });
    if (custom && custom.text.length) {
      const text = custom.text.join("\n");
      // An entry of a few words or of figures (a buff's "+20% for 2 turns") is a game rule, not an article.
      if (text.replace(/\s+/g, "").length >= 60 && (text.match(/\d+(?:\.\d+)?\s*%/g)?.length ?? 0) < 2) out.add({ title: custom.title ?? custom.name, text, kind: "renpy-label" });
    }
    label = null;
    body = [];
    custom = null;
  };
  for (const raw of lines) {
    if (custom?.open) {
      // Inside a triple-quoted string: every line is text until the closing quotes.
      const end = raw.indexOf('"""');
      custom.open.push(end >= 0 ? raw.slice(0, end) : raw);
      if (end >= 0) {
        custom.text.push(cleanRenpyText(custom.open.join("\n")));
        custom.open = null;
      }
      continue;
    }
    if (!raw.trim() || raw.trimStart().startsWith("#")) continue;
    const topLevel = !/^\s/.test(raw);
    if (topLevel) {
      const m = LABEL_RE.exec(raw);
      flush();
      if (m) {
        label = m[1];
      } else {
        const c = CUSTOM_BLOCK_RE.exec(raw);
        if (c && !OWN_STATEMENTS.has(c[1])) custom = { name: raw.replace(/:\s*$/, "").split(/\s+/).pop()!, title: null, text: [], open: null };
      }
      continue;
    }
    if (custom) {
      const t = TITLE_RE.exec(raw);
      if (t && custom.title === null) custom.title = cleanRenpyText(t[1]);
      const q = raw.indexOf('"""');
      if (q >= 0) {
        const rest = raw.slice(q + 3);
        const end = rest.indexOf('"""');
        if (end >= 0) custom.text.push(cleanRenpyText(rest.slice(0, end)));
        else custom.open = [rest];
      }
      continue;
    }
    if (label === null) continue;
    const say = SAY_RE.exec(raw);
    if (say) {
      const who = say[1] !== undefined ? unescapeBackslashes(say[1]) : say[2];
      if (say[2] && NOT_SPEAKERS.has(say[2])) continue;
      const text = cleanRenpyText(say[3]);
      if (!text) continue;
      const name = who ? (speakers.get(who) ?? who) : null;
      body.push(name ? `${name}: ${text}` : text);
      continue;
    }
    const choice = CHOICE_RE.exec(raw);
    if (choice) {
      const text = cleanRenpyText(choice[1]);
      if (text) body.push(text);
    }
  }
  flush();
}

function cleanRenpyText(s: string): string {
  return closeGaps(unescapeBackslashes(s)
    .replace(/\{\{/g, "\u0000")
    .replace(/\{[^{}]*\}/g, "") // text tags {b} {/b} {w=0.5}
    .replace(/\u0000/g, "{")
    .replace(/\[\[/g, "[")
    .replace(/\[[\w.!]+\]/g, "") // [player_name] interpolation
    .replace(/\s+/g, " "),
  ).trim();
}
