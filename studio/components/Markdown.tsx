import DOMPurify from "dompurify";
import { marked } from "marked";
import { useMemo } from "preact/hooks";

/** Lore is untrusted: Markdown → HTML by marked, then DOMPurify; no raw HTML reaches the page unsanitised. */
export function Markdown({ text }: { text: string }) {
  const html = useMemo(() => DOMPurify.sanitize(marked.parse(text, { async: false, gfm: true }) as string, { USE_PROFILES: { html: true } }), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}
