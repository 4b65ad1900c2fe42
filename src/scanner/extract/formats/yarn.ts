import type { SectionCollector } from "../SectionCollector.ts";
import { closeGaps, flattenBraces } from "../narrativeText.ts";
import { SKIP } from "../text.ts";

/**
 * Yarn Spinner: nodes are `key: value` headers, `---`, body, `===`. One section per node,
 * titled by its `title:` header. Commands (<<…>>), line tags (#line:…), markup ([b]) and
 * option arrows are dropped; option text and speaker names are kept.
 */
export function extractYarn(content: string, out: SectionCollector): void {
  const lines = content.replace(/^\uFEFF/, "").split(/\r?\n/);
  let state: "between" | "header" | "body" = "between";
  let title: string | null = null;
  let headerTags: string[] = [];
  let body: string[] = [];
  let nodes = 0;
  let malformed: string | null = null;

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
    if (trimmed === "" || trimmed.startsWith("//")) continue;
    if (trimmed === "---") {
      state = "body";
      continue;
    }
    const header = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(trimmed);
    if (header) {
      state = "header";
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
