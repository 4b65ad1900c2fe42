import type { SectionCollector } from "../SectionCollector.ts";
import { closeGaps, flattenBraces, stripComments } from "../narrativeText.ts";

const KNOT_RE = /^\s*={2,}\s*(function\s+)?([\p{L}\w]+)[^=]*=*\s*$/u;
const STITCH_RE = /^\s*=\s*([\p{L}\w]+)\s*(?:\([^)]*\))?\s*$/u;
const LOGIC_RE = /^(?:~|VAR\s|CONST\s|INCLUDE\s|EXTERNAL\s|LIST\s|TODO\b|#)/;

/**
 * Ink: one section per knot (`=== knot ===`) and per stitch (`= stitch`, titled "knot.stitch").
 * Choice markers, gathers, labels, diverts, tags, glue and logic lines are noise; the
 * words of choices and alternatives are kept. Function knots are code and are left out.
 */
export function extractInk(content: string, out: SectionCollector): void {
  const lines = stripComments(content).split(/\r?\n/);
  let title: string | null = null;
  let knot: string | null = null;
  let kind = "ink-knot";
  let inFunction = false;
  let body: string[] = [];
  const flush = () => {
    if (!inFunction && body.length) out.add({ title, text: body.join("\n"), kind });
    body = [];
  };
  for (const raw of lines) {
    const k = KNOT_RE.exec(raw);
    if (k) {
      flush();
      inFunction = !!k[1];
      knot = k[2];
      title = knot;
      kind = "ink-knot";
      continue;
    }
    const s = STITCH_RE.exec(raw);
    if (s) {
      flush();
      title = knot ? `${knot}.${s[1]}` : s[1];
      kind = "ink-stitch";
      continue;
    }
    if (inFunction) continue;
    const line = cleanInkLine(raw);
    if (line) body.push(line);
  }
  flush();
}

export function cleanInkLine(raw: string): string {
  let t = raw.trim();
  if (!t || LOGIC_RE.test(t)) return "";
  t = t
    .replace(/^(?:[*+]\s*)+/, "") // choice bullets
    .replace(/^(?:-(?!>)\s*)+/, "") // gather dashes
    .replace(/^\(\s*\w+\s*\)\s*/, "") // label
    .replace(/->->|<-\s*[\w.]+|->\s*[\w.]*(?:\([^)]*\))?/g, " ") // diverts, tunnels, threads
    .replace(/<>/g, " ");
  const hash = t.indexOf("#");
  if (hash >= 0) t = t.slice(0, hash); // tags
  return closeGaps(flattenBraces(t).replace(/[[\]]/g, "").replace(/\s+/g, " ")).trim();
}
