import { XMLParser, XMLValidator } from "fast-xml-parser";

export interface XElement {
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
}
export type XNode = XElement | { text: string };

export function isElement(n: XNode): n is XElement {
  return (n as XElement).name !== undefined;
}

const parser = new XMLParser({
  preserveOrder: true, // mixed content (<source>Hi <g>there</g></source>) must keep its order
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
});

/** Parse XML into a small ordered tree; throws Error with the validator's message when not well-formed. */
export function parseXml(content: string): XElement[] {
  const text = content.replace(/^\uFEFF/, "");
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`${valid.err.msg} (line ${valid.err.line})`);
  return convert(parser.parse(text) as unknown[]).filter(isElement);
}

function convert(items: unknown[]): XNode[] {
  const out: XNode[] = [];
  for (const item of items) {
    if (!item || typeof item !== "object") continue;
    const rec = item as Record<string, unknown>;
    for (const key of Object.keys(rec)) {
      if (key === ":@") continue;
      if (key === "#text") out.push({ text: String(rec[key]) });
      else if (key === "#comment" || key.startsWith("?") || key.startsWith("!")) continue;
      else {
        const attrs = (rec[":@"] ?? {}) as Record<string, unknown>;
        const a: Record<string, string> = {};
        for (const [k, v] of Object.entries(attrs)) a[k] = String(v);
        out.push({ name: key, attrs: a, children: convert((rec[key] as unknown[]) ?? []) });
      }
    }
  }
  return out;
}

/** All text under a node, in document order. */
export function textContent(n: XNode): string {
  if (!isElement(n)) return n.text;
  let s = "";
  const stack: XNode[] = [n];
  while (stack.length) {
    const cur = stack.pop()!;
    if (!isElement(cur)) s += cur.text;
    else for (let i = cur.children.length - 1; i >= 0; i--) stack.push(cur.children[i]);
  }
  return s;
}

/** Every element named `name` (local name, any namespace prefix), in document order. */
export function findAll(roots: XElement[], name: string): XElement[] {
  const found: XElement[] = [];
  const stack: XElement[] = [...roots].reverse();
  while (stack.length) {
    const el = stack.pop()!;
    if (localName(el.name) === name) found.push(el);
    const kids = el.children.filter(isElement);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
  }
  return found;
}

export function localName(name: string): string {
  const i = name.indexOf(":");
  return i >= 0 ? name.slice(i + 1) : name;
}

export function child(el: XElement, name: string): XElement | undefined {
  return el.children.find((c): c is XElement => isElement(c) && localName(c.name) === name);
}
