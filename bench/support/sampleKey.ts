import { createHash } from "node:crypto";
/** A candidate's identity across scanner versions: its first file, title and the start of its text. */
export function sampleKey(r: { title: string; content: string; source_files: string }): string {
  const files = JSON.parse(r.source_files) as string[];
  return createHash("sha256").update(`${files[0] ?? ""}\n${r.title}\n${r.content.replace(/\s+/g, " ").slice(0, 200)}`).digest("hex").slice(0, 16);
}
