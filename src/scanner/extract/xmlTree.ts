import { XMLValidator } from "fast-xml-parser";
import { Parser } from "htmlparser2";

export interface XElement {
  name: string;
  attrs: Record<string, string>;
  children: XNode[];
}
export type XNode = XElement | { text: string };

export function isElement(n: XNode): n is XElement {
  return (n as XElement).name !== undefined;
}

/**
 * Parse XML into a small ordered tree (mixed content such as `<source>Hi <g>there</g></source>`
 * keeps its order). fast-xml-parser's validator decides well-formedness; htmlparser2's SAX
 * parser in XML mode builds the tree, several times faster than a full object parse on big files.
 * Throws Error with the validator's message when the input is not well-formed.
 */
export function parseXml(content: string): XElement[] {
  const text = content.replace(/^\uFEFF/, "");
  const valid = XMLValidator.validate(text);
  if (valid !== true) throw new Error(`${valid.err.msg} (line ${valid.err.line})`);
  const root: XElement = { name: "", attrs: {}, children: [] };
  const stack: XElement[] = [root];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        const el: XElement = { name, attrs: { ...attrs }, children: [] };
        stack[stack.length - 1].children.push(el);
        stack.push(el);
      },
      ontext(data) {
        const kids = stack[stack.length - 1].children;
        const last = kids[kids.length - 1];
        if (last && !isElement(last)) last.text += data;
        else kids.push({ text: data });
      },
      onclosetag() {
        if (stack.length > 1) stack.pop();
      },
    },
    { xmlMode: true, decodeEntities: true },
  );
  parser.write(text);
  parser.end();
  return root.children.filter(isElement);
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
