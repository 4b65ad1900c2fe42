import type { SectionCollector } from "../SectionCollector.ts";
import { splitFrontMatter } from "../frontMatter.ts";
import { countIdentifiers } from "../techText.ts";
import { SKIP, stripAngleTags } from "../text.ts";

/** Headings up to this level start a new section; deeper ones stay inside as plain lines. */
const SPLIT_LEVEL = 3;
/** A titled page's section is cut at the first heading past this size. */
const PAGE_SECTION_CHARS = 4000;
/** Code a page in a project's docs folder may name and still be read: one stray identifier is not a class reference. */
const DOCS_CODE_EVIDENCE = 2;
const DOCS_DIRS = new Set(["docs", "doc", "documentation"]);

/** Is the file inside a `docs/`, `doc/` or `documentation/` folder (at any depth)? */
export function inDocsFolder(relativePath: string): boolean {
  const parts = relativePath.split(/[\\/]+/);
  for (let i = 0; i < parts.length - 1; i++) if (DOCS_DIRS.has(parts[i].toLowerCase())) return true;
  return false;
}

/** Markdown: optional YAML front matter (title/tags/location hints), then one section per h1–h3. */
export function extractMarkdown(content: string, out: SectionCollector): void {
  const fm = splitFrontMatter(content);
  if (fm.error) out.skip("front matter", SKIP.parse(fm.error));
  const hints = fm.hints;

  let title: string | null = fm.title ?? null;
  let kind = "prose";
  let body: string[] = [];
  let size = 0;
  // A page with a front-matter title is about one entity (a wiki page): its headings stay inside
  // one section until it reaches PAGE_SECTION_CHARS, then it splits on the next heading.
  const page = fm.title ?? null;
  // A Markdown page in a project's docs folder that names code (a code span, a code block, a class or function
  // name) is developer documentation — "Purpose", "Flow", "Key components" of a system — however plainly its
  // sections read. Decided for the whole page, so its sections are held until the end. A lore bible kept in
  // docs/ names no code and is read as usual.
  const docsPage = inDocsFolder(out.sourceFile);
  let code = 0;
  const held: { title: string | null; text: string; kind: string }[] = [];
  const flush = () => {
    const text = body.join("\n");
    // A heading directly followed by a sub-heading is structure, not an empty section: dropped quietly.
    if (text.trim() !== "") {
      if (docsPage) held.push({ title, text, kind });
      else out.add({ title, text, kind, hints });
    }
    body = [];
    size = 0;
  };
  const startSection = (heading: string) => {
    if (page && size < PAGE_SECTION_CHARS) {
      if (heading && heading !== page) body.push(heading);
      size += heading.length + 1;
      kind = "markdown-heading";
      return;
    }
    flush();
    title = page && heading !== page ? `${page} — ${heading}` : heading;
    kind = "markdown-heading";
  };

  const lines = fm.body.split(/\r?\n/);
  let fence: string | null = null;
  let inComment = false;
  let prevWasText = false;
  for (const raw of lines) {
    if (fence) {
      if (raw.trimStart().startsWith(fence)) fence = null;
      continue;
    }
    if (docsPage && code < DOCS_CODE_EVIDENCE) code += codeNamed(raw);
    let line = raw;
    if (inComment) {
      const end = line.indexOf("-->");
      if (end < 0) continue;
      inComment = false;
      line = line.slice(end + 3);
    }
    if (line.includes("-->")) line = line.replace(/<!--.*?-->/g, "");
    const open = line.indexOf("<!--");
    if (open >= 0) {
      inComment = true;
      line = line.slice(0, open);
    }
    const fenceMatch = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      fence = fenceMatch[1];
      if (docsPage) code++;
      prevWasText = false;
      continue;
    }
    const atx = /^ {0,3}(#{1,6})(?:[ \t]|$)/.exec(line);
    if (atx) {
      const level = atx[1].length;
      const heading = cleanInline(trimClosingHashes(line.slice(atx[0].length)));
      if (level <= SPLIT_LEVEL) {
        startSection(heading);
      } else if (heading) {
        body.push(heading);
      }
      prevWasText = false;
      continue;
    }
    const setext = /^ {0,3}(=+|-+)[ \t]*$/.exec(line);
    if (setext && prevWasText) {
      const heading = body.pop() ?? "";
      startSection(heading);
      prevWasText = false;
      continue;
    }
    const cleaned = cleanBlockLine(line);
    if (cleaned === null) {
      prevWasText = false;
      continue;
    }
    const isParagraphLine = cleaned.trim() !== "" && !/^\s*(?:[-*+]|\d+[.)])\s/.test(line) && !line.trimStart().startsWith("|");
    // A soft line break inside a paragraph is a space in Markdown.
    if (isParagraphLine && prevWasText && body.length) body[body.length - 1] += ` ${cleaned.trim()}`;
    else body.push(cleaned);
    size += cleaned.length + 1;
    prevWasText = isParagraphLine;
  }
  flush();
  if (!docsPage) return;
  if (code >= DOCS_CODE_EVIDENCE) {
    out.skip(`${held.length} ${held.length === 1 ? "section" : "sections"} of developer docs`, SKIP.toolText);
    return;
  }
  for (const h of held) out.add({ ...h, hints });
}

/** Code spans and identifiers (`PlayerReference`, `checkLevelUp()`, `xp_table`) a Markdown line names. */
function codeNamed(line: string): number {
  let n = 0;
  let rest = line;
  if (line.includes("`")) {
    rest = line.replace(/`+[^`\n]+?`+/g, () => {
      n++;
      return " ";
    });
  }
  return n + countIdentifiers(rest, DOCS_CODE_EVIDENCE);
}

function trimClosingHashes(s: string): string {
  let t = s.trimEnd();
  let i = t.length;
  while (i > 0 && t[i - 1] === "#") i--;
  if (i < t.length && (i === 0 || t[i - 1] === " " || t[i - 1] === "\t")) t = t.slice(0, i);
  return t.trim();
}

/** One body line without block markup; null drops the line (rules, table separators, link definitions). */
function cleanBlockLine(line: string): string | null {
  if (/^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/.test(line)) return null; // thematic break
  if (/^ {0,3}\[[^\]]+\]:\s*\S/.test(line)) return null; // link reference definition
  let t = line.replace(/^\s*(?:>\s?)+/, ""); // blockquote
  t = t.replace(/^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?/, ""); // list item, task box
  const trimmed = t.trim();
  if (trimmed.startsWith("|") || (trimmed.includes(" | ") && trimmed.endsWith("|"))) {
    if (/^\|?[\s:|-]+\|?$/.test(trimmed) && trimmed.includes("-")) return null; // table separator
    const cells = trimmed.replace(/^\|/, "").replace(/\|$/, "").split("|").map((c) => cleanInline(c.trim())).filter(Boolean);
    return cells.join(", ");
  }
  return cleanInline(t);
}

/** Inline markup → plain text: images dropped, links to their text, emphasis/code markers removed. */
export function cleanInline(s: string): string {
  // Each pass only when its marker character is present: most lines of a wiki carry little markup.
  let t = s;
  if (t.includes("[")) {
    t = t
      .replace(/!\[([^\]\n]*)\]\([^)\n]*\)/g, "")
      .replace(/\[\[([^\]|\n]+)\|([^\]\n]+)\]\]/g, "$2")
      .replace(/\[\[([^\]\n]+)\]\]/g, "$1")
      .replace(/\[([^\]\n]*)\]\([^)\n]*\)/g, "$1")
      .replace(/\[([^\]\n]+)\]\[[^\]\n]*\]/g, "$1");
  }
  if (t.includes("<")) t = stripAngleTags(t.replace(/<((?:https?|mailto):[^>\s]+)>/g, "$1"));
  if (t.includes("`")) t = t.replace(/`+([^`\n]+?)`+/g, "$1");
  if (t.includes("*") || t.includes("_") || t.includes("~")) t = t.replace(/(?<![A-Za-z0-9])(\*{1,3}|_{1,3}|~~)(?=\S)([^*_~\n]+?)\1/g, "$2");
  if (t.includes("\\")) t = t.replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, "$1");
  return t;
}
