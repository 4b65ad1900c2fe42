import type { SectionCollector } from "../SectionCollector.ts";
import { SKIP, stripAngleTags } from "../text.ts";
import { closeGaps, flattenBraces } from "../narrativeText.ts";

const KEYWORD_RE = /^(?:join|leave|update|jump|return|label|if|elif|else|set|do|call|wait|audio|music|sound|background|style|voice)\b/;
/** `Garrick: text`, `Garrick (happy): text`, `"Old Man": text`. */
const SPEAKER_RE = /^(?:"([^"]+)"|([^\s:()[\]{}"][^:()[\]{}"]{0,60}?))\s*(?:\([^)]*\))?\s*:\s+(.+)$/;

/**
 * Dialogic timelines. Dialogic 2 text timelines: one section per `label` block (the part
 * before the first label is titled by the file), character lines as "Name: text", narration
 * and choice text kept, events ([signal …]) and logic (join, set, if …) dropped.
 * Dialogic 1 JSON timelines: the events' text fields, titled by metadata.name.
 */
export function extractDialogic(content: string, out: SectionCollector): void {
  const trimmed = content.replace(/^\uFEFF/, "").trimStart();
  if (trimmed.startsWith("{")) return extractDialogicJson(trimmed, out);
  // Dialogic names a timeline after its file.
  let title: string | null = out.stem;
  let body: string[] = [];
  const flush = () => {
    if (body.length) out.add({ title, text: body.join("\n"), kind: "dialogic-timeline" });
    body = [];
  };
  for (const raw of trimmed.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith("[")) continue;
    const label = /^label\s+(\S+)/.exec(line);
    if (label) {
      flush();
      title = label[1];
      continue;
    }
    if (KEYWORD_RE.test(line)) continue;
    let text = line;
    if (text.startsWith("- ")) text = text.slice(2).split("|")[0]; // choice, minus its [if …] condition
    const say = SPEAKER_RE.exec(text);
    const cleaned = (t: string) => closeGaps(flattenBraces(stripAngleTags(t).replace(/\[[^\]]*\]/g, "")).replace(/\s+/g, " ")).trim();
    if (say) {
      const who = (say[1] ?? say[2]).trim();
      const what = cleaned(say[3]);
      if (what) body.push(`${who}: ${what}`);
    } else {
      const what = cleaned(text);
      if (what) body.push(what);
    }
  }
  flush();
}

function extractDialogicJson(content: string, out: SectionCollector): void {
  let data: { events?: unknown; metadata?: { name?: unknown } };
  try {
    data = JSON.parse(content);
  } catch (e) {
    out.skipFile(SKIP.parse((e as Error).message));
    return;
  }
  if (!Array.isArray(data?.events)) {
    out.skipFile(SKIP.parse("Dialogic JSON timeline without an events array"));
    return;
  }
  const lines: string[] = [];
  for (const ev of data.events as Record<string, unknown>[]) {
    if (ev && typeof ev.text === "string" && ev.text.trim()) lines.push(stripAngleTags(ev.text).replace(/\[[^\]]*\]/g, ""));
    if (ev && Array.isArray(ev.options)) for (const o of ev.options as Record<string, unknown>[]) if (typeof o?.label === "string") lines.push(o.label);
  }
  const name = typeof data.metadata?.name === "string" ? data.metadata.name : null;
  out.add({ title: name, text: lines.join("\n"), kind: "dialogic-timeline" });
}
