import type { SectionCollector } from "../SectionCollector.ts";
import { closeGaps, flattenBraces } from "../narrativeText.ts";
import { SKIP } from "../text.ts";
import { isTextKey, titleRank, usableTitle } from "../fieldNames.ts";

/**
 * Yarn Spinner: nodes are `key: value` headers, `---`, body, `===`. One section per node,
 * titled by its `title:` header. Commands (<<…>>), line tags (#line:…), markup ([b]) and
 * option arrows are dropped; option text and speaker names are kept. Headers before the first node's
 * `title:` (a blank line after them, or running into the node's headers) are the file's own header
 * (a quest's `displayName`, `journalText`): one section of its prose values, titled by its name.
 */
export function extractYarn(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  let state: "between" | "header" | "body" = "between";
  let title: string | null = null;
  let headerTags: string[] = [];
  let body: string[] = [];
  let nodes = 0;
  let malformed: string | null = null;
  let block: [string, string][] = [];

  const close = () => {
    if (!title) malformed ??= `node ending before line ${nodes + 1} has no title header`;
    else out.add({ title, text: body.join("\n"), kind: "yarn-node", hints: headerTags.length ? { tags: headerTags } : undefined });
    nodes++;
    title = null;
    headerTags = [];
    body = [];
    state = "between";
  };

  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (state === "body") {
      if (trimmed === "===") {
        close();
        continue;
      }
      const line = cleanYarnLine(trimmed);
      if (line) body.push(line);
      continue;
    }
    if (trimmed === "" && state === "header" && title === null && nodes === 0) {
      fileHeader(block, out);
      block = [];
      headerTags = [];
      state = "between";
      continue;
    }
    if (trimmed === "" || trimmed.startsWith("//")) continue;
    if (trimmed === "---") {
      state = "body";
      block = [];
      continue;
    }
    const header = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(trimmed);
    if (header) {
      state = "header";
      if (header[1].toLowerCase() === "title" && title === null && nodes === 0 && block.length) {
        // The file's header ran straight into the first node's headers, with no blank line between.
        fileHeader(block, out);
        block = [];
      }
      block.push([header[1], header[2].trim()]);
      if (header[1].toLowerCase() === "title") title = header[2].trim() || null;
      else if (header[1].toLowerCase() === "tags") headerTags = header[2].split(/\s+/).filter(Boolean);
      continue;
    }
    malformed ??= `unexpected text outside a node at line ${i + 1}`;
  }
  if (state === "body") close(); // a final node may omit its ===
  if (malformed) out.skipFile(SKIP.parse(malformed));
  else if (nodes === 0) out.skipFile(SKIP.parse("no Yarn nodes (title: … --- … ===) found"));
}

// Header keys of a file's own header whose values are prose (journalText, step_journal, description …).
const PROSE_HEADER = /journal|descr|summary|objective|goal|hint/i;

/** The file's own header block: its prose values as one section, titled by its name-like header. */
function fileHeader(block: [string, string][], out: SectionCollector): void {
  let title: string | null = null;
  let best = Infinity;
  const texts: string[] = [];
  for (const [k, v] of block) {
    const rank = titleRank(k);
    if (rank >= 0 && rank < best && usableTitle(v)) (title = usableTitle(v)), (best = rank);
    else if (v && (isTextKey(k) || PROSE_HEADER.test(k))) texts.push(v);
  }
  if (texts.length) out.add({ title: title ?? out.stem, text: texts.join("\n"), kind: "yaml-object" });
}

function cleanYarnLine(trimmed: string): string {
  if (!trimmed || trimmed.startsWith("//")) return "";
  let t = trimmed
    .replace(/<<[^>]*>>/g, " ") // commands
    .replace(/\[\[([^\]|]*)\|[^\]]*\]\]/g, "$1") // v1 options [[Text|Node]]
    .replace(/\[\[[^\]]*\]\]/g, "") // v1 jumps [[Node]]
    .replace(/^->\s*/, "") // v2 option
    .replace(/\s#[\w:-]+/g, "") // line tags (#line:abc123)
    .replace(/\[\/?[\w-]+(?:\s*=[^\]]*)?\s*\/?\]/g, ""); // markup [b] [/b] [wave=2]
  if (t.startsWith("#")) return "";
  t = flattenBraces(t);
  return closeGaps(t.replace(/\s+/g, " ")).trim();
}
