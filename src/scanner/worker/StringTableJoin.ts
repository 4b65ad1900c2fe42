import { extensionOf } from "../extract/text.ts";
import { isUnitySharedTableData, isUnityStringTable, readSharedKeys, stringTableCollection } from "../extract/formats/unityStringTable.ts";

/**
 * Unity string tables joined with their shared keys across files: a locale table
 * read before its collection's "Shared Data" asset waits (its text only, until the keys
 * arrive or the archive ends); a Shared Data asset is remembered as an id → key map.
 */
export class StringTableJoin {
  private readonly keys = new Map<string, Map<string, string>>();
  private readonly waiting = new Map<string, { relativePath: string; content: string; bytes: number }[]>();
  /** Collections whose Shared Data asset the manifest lists (nothing to wait for otherwise). */
  private readonly expected = new Set<string>();

  constructor(paths: string[]) {
    for (const p of paths) {
      const m = /([^/\\]+) Shared Data\.asset$/i.exec(p);
      if (m) this.expected.add(m[1]);
    }
  }

  keysOf(collection: string): Map<string, string> | undefined {
    return this.keys.get(collection);
  }

  /**
   * What to do with a decoded file: "shared" (remembered; the tables that waited for it are
   * returned to extract now), "wait" (a table whose keys come later) or "extract".
   */
  offer(relativePath: string, content: string, bytes: number): { action: "shared"; ready: { relativePath: string; content: string; bytes: number }[] } | { action: "wait" | "extract" } {
    if (extensionOf(relativePath) !== ".asset") return { action: "extract" };
    if (isUnitySharedTableData(content)) {
      const collection = stringTableCollection(content);
      if (!collection) return { action: "extract" };
      this.keys.set(collection, readSharedKeys(content));
      const ready = this.waiting.get(collection) ?? [];
      this.waiting.delete(collection);
      return { action: "shared", ready };
    }
    if (isUnityStringTable(content)) {
      const collection = stringTableCollection(content);
      if (collection && !this.keys.has(collection) && this.expected.has(collection)) {
        const list = this.waiting.get(collection) ?? [];
        list.push({ relativePath, content, bytes });
        this.waiting.set(collection, list);
        return { action: "wait" };
      }
    }
    return { action: "extract" };
  }

  /** Tables still waiting when the archive ends (their Shared Data was missing or unreadable). */
  drain(): { relativePath: string; content: string; bytes: number }[] {
    const rest = [...this.waiting.values()].flat();
    this.waiting.clear();
    return rest;
  }
}
