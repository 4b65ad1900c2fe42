import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, decodeBasicEntities, stripAngleTags } from "../text.ts";

const HEADER_RE = /^::\s*(.*?)\s*(?:\[([^\]]*)\])?\s*(?:\{[^}]*\})?\s*$/;
/** Passages that hold story metadata or code, not prose. */
const SPECIAL = new Set(["StoryTitle", "StoryData", "StoryInit", "StoryAuthor", "StorySubtitle", "StoryMenu", "StoryCaption", "StoryBanner", "PassageReady", "PassageDone", "PassageHeader", "PassageFooter", "StoryInterface", "UserScript", "UserStylesheet"]);
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
    if (SPECIAL.has(name) || tags.some((t) => CODE_TAGS.has(t.toLowerCase()))) {
      if (body.join("").trim()) out.skip(name, SKIP.codeOnly);
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
  return t;
}
