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
  const paragraphs = fm.body.replace(/\r\n?/g, "\n").split(/\n[ \t]*\n+/);

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

function isHeadingLike(p: string): boolean {
  return p.length <= 80 && !p.includes("\n") && /\p{L}/u.test(p) && !/[.!?,;:"'”’)…]$/.test(p);
}
