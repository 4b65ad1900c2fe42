import type { SectionCollector } from "../SectionCollector.ts";
import { splitFrontMatter } from "../frontMatter.ts";
import { SKIP } from "../text.ts";

/** Paragraphs are grouped into one section until it reaches about this many characters. */
const TARGET_SECTION_CHARS = 4000;

/**
 * Plain text: optional YAML front matter, then paragraphs (blank-line separated) grouped into
 * sections. A short one-line paragraph without closing punctuation reads as a heading and
 * starts a new section titled by it.
 */
export function extractPlainText(content: string, out: SectionCollector): void {
  const fm = splitFrontMatter(content);
  if (fm.error) out.skip("front matter", SKIP.parse(fm.error));
  const paragraphs = joinHyphenated(fm.body.replace(/\r\n?/g, "\n")).split(/\n[ \t]*\n+/);

  let title: string | null = fm.title ?? null;
  let parts: string[] = [];
  let size = 0;
  const flush = () => {
    if (parts.length) out.add({ title, text: parts.join("\n\n"), kind: "prose", hints: fm.hints });
    parts = [];
    size = 0;
    title = null;
  };

  for (let i = 0; i < paragraphs.length; i++) {
    const lines = paragraphs[i].split("\n").filter((l) => !/^\s*(?:={3,}|-{3,}|\*{3,})\s*$/.test(l));
    const p = lines.join("\n").trim();
    if (!p) continue;
    if (i < paragraphs.length - 1 && isHeadingLike(p)) {
      flush();
      title = p;
      continue;
    }
    if (size > 0 && size + p.length > TARGET_SECTION_CHARS) flush();
    parts.push(p);
    size += p.length;
  }
  flush();
}

// A word cut at a line's end by a typesetter: "hardened to bat-\n     tle." (nroff, text exported from a PDF).
const HYPHEN_BREAK_RE = /(\p{Ll}{2,})-\n[ \t]*(\p{Ll}+\S*)[ \t]*/gu;
/** This many cut words make a text typeset: one or two are more likely real compounds ("two-\nhanded") than cuts. */
const TYPESET_BREAKS = 3;

/**
 * Joins the words a typesetter hyphenated across lines, so a reviewer (and a search) reads "battle", not
 * "bat- tle". Only in a text with several such breaks: hand-written prose rarely ends a line in a hyphen, and
 * where it does the hyphen is more likely its own. A compound cut at its hyphen loses it — rare, and harmless.
 */
export function joinHyphenated(text: string): string {
  // Most texts have no line ending in a hyphen: one plain search spares them the Unicode-class scan.
  if (!text.includes("-\n")) return text;
  HYPHEN_BREAK_RE.lastIndex = 0;
  let n = 0;
  while (n < TYPESET_BREAKS && HYPHEN_BREAK_RE.exec(text)) n++;
  if (n < TYPESET_BREAKS) return text;
  return text.replace(HYPHEN_BREAK_RE, "$1$2\n");
}

function isHeadingLike(p: string): boolean {
  return p.length <= 80 && !p.includes("\n") && /\p{L}/u.test(p) && !/[.!?,;:"'”’)…]$/.test(p);
}
