import type { SectionCollector } from "../SectionCollector.ts";
import { isTextKey, titleRank, usableTitle } from "../fieldNames.ts";
import { SKIP, looksLikeWords } from "../text.ts";
import { type XElement, child, findAll, isElement, localName, parseXml, textContent } from "../xmlTree.ts";

function parseOrSkip(content: string, out: SectionCollector): XElement[] | null {
  try {
    return parseXml(content);
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return null;
  }
}

/**
 * Generic XML: an element with text-like children (<description>, <lore> …) or prose text of
 * its own becomes a section, titled by a name/title-like attribute or child element.
 * Mixed content (<p>Hi <b>you</b></p>) is read whole.
 */
export function extractXml(content: string, out: SectionCollector): void {
  const roots = parseOrSkip(content, out);
  if (!roots) return;
  const stack: XElement[] = [...roots].reverse();
  while (stack.length) {
    const el = stack.pop()!;
    const kids = el.children.filter(isElement);
    const ownText = el.children.filter((c) => !isElement(c)).map((c) => (c as { text: string }).text).join("");
    const consumed = new Set<XElement>();

    let title: string | null = null;
    let bestRank = Infinity;
    for (const [k, v] of Object.entries(el.attrs)) {
      const r = titleRank(k);
      const t = r >= 0 && r < bestRank ? usableTitle(v) : null;
      if (t) {
        title = t;
        bestRank = r;
      }
    }
    for (const k of kids) {
      const r = titleRank(localName(k.name));
      if (r < 0 || r >= bestRank || k.children.some(isElement)) continue;
      const t = usableTitle(textContent(k));
      if (t) {
        title = t;
        bestRank = r;
        consumed.add(k);
      }
    }

    if (ownText.trim() && looksLikeWords(ownText)) {
      out.add({ title, text: textContent(el), kind: "xml-element" });
      continue; // mixed content: the inline children were part of the text
    }
    const parts: string[] = [];
    for (const k of kids) {
      if (consumed.has(k) || !isTextKey(localName(k.name))) continue;
      const t = textContent(k);
      if (t.trim()) {
        parts.push(t);
        consumed.add(k);
      }
    }
    if (parts.length) out.add({ title, text: parts.join("\n\n"), kind: "xml-element" });
    for (let i = kids.length - 1; i >= 0; i--) if (!consumed.has(kids[i])) stack.push(kids[i]);
  }
}

/** .NET .resx: each <data name="…"><value>…</value></data>; typed/binary resources are skipped. */
export function extractResx(content: string, out: SectionCollector): void {
  const roots = parseOrSkip(content, out);
  if (!roots) return;
  for (const data of findAll(roots, "data")) {
    const name = data.attrs.name ?? null;
    if (data.attrs.type || data.attrs.mimetype) {
      out.skip(name ?? "data", SKIP.binary);
      continue;
    }
    const value = child(data, "value");
    out.add({ title: name, text: value ? textContent(value) : "", kind: "resx-entry", quiet: true, groupKey: name ?? undefined });
  }
}

/** XLIFF 1.2 <trans-unit> and 2.x <unit>: the source text (the target when the source is empty), titled by resname or id. */
export function extractXliff(content: string, out: SectionCollector): void {
  const roots = parseOrSkip(content, out);
  if (!roots) return;
  const units = [...findAll(roots, "trans-unit"), ...findAll(roots, "unit")];
  for (const unit of units) {
    const segments = localName(unit.name) === "unit" ? findAll([unit], "segment") : [unit];
    const pick = (name: string) =>
      segments
        .map((s) => child(s, name))
        .filter((x): x is XElement => !!x)
        .map(textContent)
        .join(" ")
        .trim();
    const text = pick("source") || pick("target");
    out.add({ title: usableTitle(unit.attrs.resname) ?? usableTitle(unit.attrs.id), text, kind: "xliff-unit", quiet: true });
  }
}
