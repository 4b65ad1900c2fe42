import { skipGroupOf, skipKindReason, type SkipKind } from "../extract/index.ts";
import type { Skipped } from "../extract/index.ts";

/** Folder-level entries listed at most; beyond, one line per kind. */
const MAX_GROUPS = 100;

export const TRANSLATION_REASON =
  'Translation: attached as variants of the source-language candidates (scan it on its own with "include: translations" in userContext)';

/**
 * Files skipped by kind before extraction, counted per folder or kind so
 * that a 400-file addon folder is one line of skippedContent, not 400.
 */
export class SkipTally {
  private readonly groups = new Map<string, { section: string; reason: string; sourceFile: string; n: number; names: string[] }>();
  private readonly overflow = new Map<string, number>();

  addKind(relativePath: string, kind: SkipKind): void {
    const folder = skipGroupOf(relativePath, kind);
    // Folder kinds count under their folder; file kinds (changelog, licence, docs, ci files) under the kind.
    const key = folder.endsWith("/") ? `${kind}|${folder}` : `${kind}|`;
    this.bump(key, folder.endsWith("/") ? folder : "", skipKindReason(kind), relativePath);
  }

  addTranslation(relativePath: string, language: string): void {
    this.bump(`translation|${language}`, `language ${language}`, TRANSLATION_REASON, relativePath);
  }

  private bump(key: string, label: string, reason: string, path: string): void {
    const g = this.groups.get(key);
    if (g) {
      g.n++;
      if (g.names.length < 3) g.names.push(path.slice(path.lastIndexOf("/") + 1));
      return;
    }
    if (this.groups.size >= MAX_GROUPS) {
      this.overflow.set(reason, (this.overflow.get(reason) ?? 0) + 1);
      return;
    }
    this.groups.set(key, { section: label, reason, sourceFile: label.endsWith("/") ? label : path, n: 1, names: [path.slice(path.lastIndexOf("/") + 1)] });
  }

  entries(): Skipped[] {
    const out: Skipped[] = [];
    for (const g of this.groups.values()) {
      const files = `${g.n} ${g.n === 1 ? "file" : "files"}`;
      const what = g.section || `${g.names.join(", ")}${g.n > g.names.length ? ", …" : ""}`;
      out.push({ section: `${what} (${files})`, reason: g.reason, sourceFile: g.sourceFile });
    }
    for (const [reason, n] of this.overflow) out.push({ section: `${n} more files`, reason, sourceFile: "(several folders)" });
    return out;
  }
}
