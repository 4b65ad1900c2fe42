import type { SectionCollector } from "../SectionCollector.ts";
import { decodeBasicEntities } from "../text.ts";
import { cleanTwee } from "./twee.ts";

/**
 * Twine 2 HTML (a library archive or a published story without its Twee source): one
 * candidate per `<tw-passagedata>`, titled by its name, tags as hints, macros stripped as in
 * Twee; the story format's script and style are not passages. Several stories may share a file.
 */
export function isTwineHtml(content: string): boolean {
  return content.includes("<tw-storydata") && content.includes("<tw-passagedata");
}

const PASSAGE_RE = /<tw-passagedata\b([^>]*)>([\s\S]*?)<\/tw-passagedata>/g;

export function extractTwineArchive(content: string, out: SectionCollector): void {
  for (const m of content.matchAll(PASSAGE_RE)) {
    const attrs = attributes(m[1]);
    const name = attrs.name ?? null;
    const tags = (attrs.tags ?? "").split(/\s+/).filter(Boolean);
    const text = cleanTwee(decodeBasicEntities(m[2]));
    out.add({ title: name, text, kind: "twee-passage", hints: tags.length ? { tags } : undefined });
  }
}

function attributes(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of s.matchAll(/([\w-]+)\s*=\s*"([^"]*)"/g)) out[m[1].toLowerCase()] = decodeBasicEntities(m[2]);
  return out;
}
