import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, decodeBasicEntities, stripAngleTags } from "../text.ts";
import { closeGaps } from "../narrativeText.ts";

const HEADER_RE = /^::\s*(.*?)\s*(?:\[([^\]]*)\])?\s*(?:\{[^}]*\})?\s*$/;
/** Special passages holding story metadata, and ones holding code. */
const METADATA = new Set(["StoryTitle", "StoryData", "StoryAuthor", "StorySubtitle", "StoryMenu", "StoryCaption", "StoryBanner", "StoryInterface"]);
const CODE = new Set(["StoryInit", "PassageReady", "PassageDone", "PassageHeader", "PassageFooter", "UserScript", "UserStylesheet"]);
const CODE_TAGS = new Set(["script", "stylesheet", "widget", "init", "startup", "header", "footer", "debug-startup"]);

/**
 * Twine 3 / Twee: one section per `:: Name [tags]` passage; passage tags become tag hints.
 * Links keep their text, macros (<<set>>, (set:)) and HTML are dropped; script, stylesheet
 * and special passages are skipped as code.
 */
export function extractTwee(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  let name: string | null = null;
  let tags: string[] = [];
  let body: string[] = [];
  let passages = 0;
  const flush = () => {
    if (name === null) return;
    passages++;
    if (METADATA.has(name)) {
      out.skip(name, SKIP.metadata);
    } else if (CODE.has(name) || tags.some((t) => CODE_TAGS.has(t.toLowerCase()))) {
      out.skip(name, SKIP.codeOnly);
    } else {
      out.add({ title: name, text: cleanTwee(body.join("\n")), kind: "twee-passage", hints: tags.length ? { tags } : undefined });
    }
    body = [];
  };
  for (const line of lines) {
    if (line.startsWith("::")) {
      const m = HEADER_RE.exec(line);
      flush();
      name = (m?.[1] ?? line.slice(2)).replace(/\\(.)/g, "$1").trim();
      tags = (m?.[2] ?? "").split(/\s+/).filter(Boolean);
      continue;
    }
    if (name !== null) body.push(line);
  }
  flush();
  if (passages === 0) out.skipFile(SKIP.parse("no Twee passages (:: Name) found"));
}

function cleanTwee(s: string): string {
  let t = s
    .replace(/\/\*[\s\S]*?\*\/|<!--[\s\S]*?-->/g, "")
    .replace(/<<(?:script|style)>>[\s\S]*?<<\/(?:script|style)>>/g, "")
    .replace(/<<[^>]*>>/g, "") // SugarCube macros
    .replace(/\[\[([^\]]*?)(?:\||->)[^\]]*\]\]/g, "$1") // [[text|target]] [[text->target]]
    .replace(/\[\[[^\]]*?<-([^\]]*)\]\]/g, "$1") // [[target<-text]]
    .replace(/\[\[([^\]]*)\]\]/g, "$1")
    .replace(/\((?:[a-z][\w-]*):[^()]*\)/gi, ""); // Harlowe macros (set: $x to 1)
  t = decodeBasicEntities(stripAngleTags(t))
    .replace(/''|\/\/|~~|\^\^|==/g, "") // SugarCube/Harlowe inline style markers
    .replace(/[[\]]/g, "") // Harlowe hooks
    .replace(/(?<!\w)[$_][A-Za-z]\w*/g, ""); // story/temp variables
  return closeGaps(t);
}
