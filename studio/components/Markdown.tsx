import DOMPurify from "dompurify";
import { Marked } from "marked";
import { useMemo } from "preact/hooks";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/**
 * Lore is untrusted. Raw HTML inside Markdown is shown as text, never
 * parsed (marked's html renderer escapes it), and what marked produces still
 * goes through DOMPurify before it reaches the page; the CSP is the third wall.
 */
const marked = new Marked({ gfm: true, async: false, renderer: { html: ({ text }) => escapeHtml(text) } });

export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(text) as string, { USE_PROFILES: { html: true } }), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
