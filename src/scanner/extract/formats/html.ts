import { Parser } from "htmlparser2";
import type { SectionCollector } from "../SectionCollector.ts";

const HIDDEN = new Set(["script", "style", "noscript", "template", "head", "svg", "iframe", "object", "canvas"]);
const SPLIT = new Set(["h1", "h2", "h3"]);
const BLOCK = new Set([
  "p", "div", "br", "li", "ul", "ol", "tr", "td", "th", "table", "section", "article", "aside", "header", "footer",
  "main", "nav", "blockquote", "pre", "h4", "h5", "h6", "dd", "dt", "dl", "figure", "figcaption", "hr", "form", "fieldset",
]);

/** HTML: visible text only (no script/style/head), one section per h1–h3; <title> names the text before the first heading. */
export function extractHtml(content: string, out: SectionCollector): void {
  let hiddenDepth = 0;
  let inTitle = false;
  let docTitle = "";
  let headingText: string[] | null = null;
  let title: string | null = null;
  const kind = "html-text";
  let buf: string[] = [];
  let sawHeading = false;

  const flush = () => {
    const text = buf.join("");
    if (text.trim()) out.add({ title: title ?? (sawHeading ? null : docTitle || null), text, kind });
    buf = [];
  };

  const parser = new Parser(
    {
      onopentag(name) {
        if (name === "title") inTitle = true;
        if (HIDDEN.has(name)) hiddenDepth++;
        if (hiddenDepth > 0) return;
        if (SPLIT.has(name)) {
          flush();
          headingText = [];
        } else if (BLOCK.has(name)) buf.push("\n\n");
      },
      ontext(data) {
        if (inTitle) docTitle += data;
        if (hiddenDepth > 0) return;
        if (headingText) headingText.push(data);
        else buf.push(data.replace(/\s+/g, " ")); // source line breaks are just spaces in HTML
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
        if (HIDDEN.has(name)) {
          hiddenDepth = Math.max(0, hiddenDepth - 1);
          return;
        }
        if (hiddenDepth > 0) return;
        if (SPLIT.has(name) && headingText) {
          title = headingText.join("").replace(/\s+/g, " ").trim() || null;
          headingText = null;
          sawHeading = true;
        } else if (BLOCK.has(name)) buf.push("\n\n");
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(content);
  parser.end();
  flush();
}
