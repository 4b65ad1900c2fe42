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

/**
 * Ren'Py: one section per top-level `label name:`; its say lines become "Speaker: text"
 * (speaker names resolved from `define x = Character("Name")`), narration stays plain and
 * menu choices are kept. Text tags ({b}, {w}) and [interpolations] are removed.
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
  const flush = () => {
    if (label !== null) out.add({ title: label, text: body.join("\n"), kind: "renpy-label" });
    label = null;
    body = [];
  };
  for (const raw of lines) {
    if (!raw.trim() || raw.trimStart().startsWith("#")) continue;
    const topLevel = !/^\s/.test(raw);
    if (topLevel) {
      const m = LABEL_RE.exec(raw);
      flush();
      if (m) {
        label = m[1];
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
