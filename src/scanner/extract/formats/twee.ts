import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, decodeBasicEntities, stripAngleTags } from "../text.ts";
import { closeGaps, stripBlocks } from "../narrativeText.ts";

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
      flush();
      ({ name, tags } = parseHeader(line));
      continue;
    }
    if (name !== null) body.push(line);
  }
  flush();
  if (passages === 0) out.skipFile(SKIP.parse("no Twee passages (:: Name) found"));
}

/** `:: Name [tag1 tag2] {"position":"…"}`, read from the right so no regex backtracks over the name. */
function parseHeader(line: string): { name: string; tags: string[] } {
  let rest = line.slice(2).trim();
  if (rest.endsWith("}")) {
    const open = rest.lastIndexOf("{");
    if (open >= 0) rest = rest.slice(0, open).trim();
  }
  let tags: string[] = [];
  if (rest.endsWith("]")) {
    const open = rest.lastIndexOf("[");
    if (open >= 0) {
      tags = rest.slice(open + 1, -1).split(/\s+/).filter(Boolean);
      rest = rest.slice(0, open).trim();
    }
  }
  return { name: rest.replace(/\\(.)/g, "$1"), tags };
}

export function cleanTwee(s: string): string {
  let t = [
    ["/*", "*/"],
    ["<!--", "-->"],
    ["<<script>>", "<</script>>"],
    ["<<style>>", "<</style>>"],
  ].reduce((acc, [open, close]) => stripBlocks(acc, open, close), s);
  t = t
    // A backslash ending a line joins it to the next (SugarCube, mostly after a macro line): the break goes too.
    .replace(/\\[ \t]*(?:\r?\n|$)/g, "")
    // SugarCube macros, up to the first `>>`: their arguments may hold `<`, `>` and `>=` (<<if $gold >= 3>>).
    .replace(/<<[\s\S]{0,1000}?>>/g, "")
    .replace(/\[\[([^\]|]{0,500}?)(?:\||->)[^\]]{0,500}\]\]/g, "$1") // [[text|target]] [[text->target]]
    .replace(/\[\[[^\]]{0,500}?<-([^\]]{0,500})\]\]/g, "$1") // [[target<-text]]
    .replace(/\[\[([^\]]{0,500})\]\]/g, "$1")
    .replace(/\((?:[a-z][\w-]*):[^()]*\)/gi, ""); // Harlowe macros (set: $x to 1)
  t = decodeBasicEntities(stripAngleTags(t))
    .replace(/''|\/\/|~~|\^\^|==/g, "") // SugarCube/Harlowe inline style markers
    .replace(/[[\]]/g, "") // Harlowe hooks
    .replace(/`/g, "") // backquoted expressions in link text (`"Thank you!"`)
    // story/temp variables with their property and index reads ($player.name, $enemies[_i].health)
    .replace(/(?<!\w)[$_][A-Za-z]\w*(?:\.[A-Za-z_]\w*|\[[^\]\n]{0,40}\])*/g, "");
  return closeGaps(t);
}
