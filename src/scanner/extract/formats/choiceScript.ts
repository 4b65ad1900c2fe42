import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP } from "../text.ts";

/**
 * ChoiceScript (Choice of Games): `scenes/*.txt`, listed by `startup.txt`'s `*scene_list`. Prose lines
 * between commands (`*choice`, `*set`, `*goto`, `*label`, `*if` …, a line each, starting with `*`);
 * a `*choice` is followed by indented `#Option` lines, each with its indented branch below.
 *
 * Sections: the scene (the file) and each `*label` in it; the branches of the first choice under a
 * label are sections of their own, titled by their option — a stats screen's `#Heimdall` branch is
 * Heimdall's bio, a story's branch is one path through the scene — and deeper choices stay inside
 * their branch. Options are kept as the player's answers (`> Option`), commands are removed.
 */

const COMMANDS = new Set(
  ("choice fake_choice set goto goto_scene gosub gosub_scene label if elseif elsif else page_break finish comment temp create scene_list " +
    "title author stat_chart line_break achieve achievement return ending image selectable_if hide_reuse disable_reuse allow_reuse " +
    "input_text input_number rand print bug script sound link link_button share_this_game more_games restart save_game delay_break " +
    "delay_ending check_purchase purchase abort params looplimit redirect_scene product").split(" "),
);
const LICENCE_RE = /licenses this file to you under|WITHOUT WARRANTIES OR CONDITIONS/i;

/** Commands whose indented lines below are their arguments, not the story. */
const BLOCKS = new Set(["stat_chart", "scene_list", "achievement"]);
const COMMAND_RE = /^\*([a-z_]+)\b/;
const OPTION_RE = /^(?:\*(?:if|elseif|selectable_if|hide_reuse|disable_reuse|allow_reuse)\b(?:\s*\([^#]*\)|[^#]*)\s*)*#(.*)$/;

/** A .txt is ChoiceScript when several of its lines are ChoiceScript commands (of at least three kinds), or it lists scenes. */
export function looksLikeChoiceScript(content: string): boolean {
  const head = content.length > 200_000 ? content.slice(0, 200_000) : content;
  if (/^\*scene_list\s*$/m.test(head)) return true;
  const kinds = new Set<string>();
  let lines = 0;
  for (const m of head.matchAll(/^[ \t]*\*([a-z_]+)\b/gm)) {
    if (!COMMANDS.has(m[1])) continue;
    kinds.add(m[1]);
    lines++;
  }
  return kinds.size >= 3 && lines >= 3;
}

/** `${var}`, `$!{var}`, `@{var a|b}` (multireplace: its first text), `[n/]` line breaks. */
export function cleanChoiceScriptText(s: string): string {
  return s
    .replace(/@!?!?\{\(?[^\s}]+\)?\s+([^|}]*)[^}]*\}/g, "$1")
    .replace(/\$!?!?\{[^}]*\}/g, "")
    .replace(/\[n\/\]/g, "\n")
    .replace(/[ \t]+/g, " ")
    .replace(/ +([.,;:!?])/g, "$1")
    .trim();
}

const indentOf = (line: string) => {
  let n = 0;
  for (const ch of line) {
    if (ch === " ") n++;
    else if (ch === "\t") n += 4;
    else break;
  }
  return n;
};

export function extractChoiceScript(content: string, out: SectionCollector): void {
  const scene = out.stem;
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  let label: string | null = null;
  let title = scene;
  let body: string[] = [];
  /** Indent of the first choice under the current label, and of its options, while it lasts. */
  let choiceIndent: number | null = null;
  let optionIndent: number | null = null;
  let inBlock = false;
  const flush = () => {
    const text = body.join("\n").replace(/\n{3,}/g, "\n\n").trim();
    // ChoiceScript's template startup scene keeps its licence notice as text shown to the player.
    // A branch that is only the player's answers ("> Walk out.") says nothing by itself.
    if (text && body.every((l) => l === "" || l.startsWith("> "))) out.skip(title, SKIP.tooShort);
    else if (text && LICENCE_RE.test(text)) out.skip(title, SKIP.license);
    else if (text) out.add({ title, text, kind: "choicescript-passage" });
    body = [];
  };
  const blank = () => {
    if (body.length && body[body.length - 1] !== "") body.push("");
  };
  for (const raw of lines) {
    const t = raw.trim();
    if (!t) {
      blank();
      continue;
    }
    const indent = indentOf(raw);
    // A first-level choice ends at the first line back at its own indent or less.
    if (choiceIndent !== null && indent <= choiceIndent) {
      flush();
      choiceIndent = optionIndent = null;
      title = label ? `${scene}: ${label}` : scene;
    }
    const option = OPTION_RE.exec(t);
    if (option && (t.startsWith("#") || t.startsWith("*"))) {
      const words = cleanChoiceScriptText(option[1]);
      if (choiceIndent !== null && (optionIndent === null || indent === optionIndent)) {
        optionIndent = indent;
        flush();
        title = `${label ? `${scene}: ${label}` : scene} › ${words}`;
      }
      if (words) body.push(`> ${words}`);
      continue;
    }
    const cmd = COMMAND_RE.exec(t);
    if (cmd && COMMANDS.has(cmd[1])) {
      inBlock = false;
      const name = cmd[1];
      if (name === "label") {
        flush();
        label = t.slice(cmd[0].length).trim() || null;
        title = label ? `${scene}: ${label}` : scene;
        choiceIndent = optionIndent = null;
      } else if ((name === "choice" || name === "fake_choice") && choiceIndent === null) {
        choiceIndent = indent;
        optionIndent = null;
      } else if (name === "line_break") body.push("");
      else if (BLOCKS.has(name)) inBlock = true;
      continue;
    }
    // The indented lines under *stat_chart, *scene_list and *achievement are the chart's rows, the scene names, an achievement's blurb.
    if (inBlock && indent > 0) continue;
    inBlock = false;
    const text = cleanChoiceScriptText(t);
    if (text) body.push(text);
  }
  flush();
}
