import { mkdirSync, readdirSync, rmSync, statSync, utimesSync } from "node:fs";
import { readFile, rename, rm, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { checksum, readHeader, readMeta, writeMeta, type SnapshotHeader, type SnapshotKind, type SnapshotMeta } from "./snapshotFile.ts";
import { packState, unpackState } from "./stateCodec.ts";

interface Entry {
  dir: string;
  id: string;
  bytes: number;
  lastUsed: number;
}

export interface SnapshotStoreStats {
  files: number;
  bytes: number;
  budgetBytes: number;
  writable: boolean;
  refused: number;
  evictedByBudget: number;
}

/** Unpacked prefix states kept in memory (~6–25 MB each for a 0.5B model's 1–2k-token prompt). */
const BASES_IN_MEMORY = 2;
/** How long saving stays off after the disk said full or read-only. */
const UNWRITABLE_BACKOFF_MS = 60_000;
const DISK_FULL = new Set(["ENOSPC", "EROFS", "EACCES", "EPERM", "EDQUOT"]);

/**
 * KV snapshots on disk: `<root>/<model fingerprint>/<id>.state|.meta` (snapshotFile.ts), one
 * directory per fingerprint so a state never crosses models, context sizes or KV layouts.
 * The byte budget spans every fingerprint: least recently used snapshots go first, which is
 * how an old model's snapshots leave. A full or read-only disk turns saving off for a while
 * (the turn is never delayed or failed by it).
 */
export class SnapshotStore {
  readonly dir: string;
  private readonly entries = new Map<string, Entry>();
  private unwritableUntil = 0;
  private refused = 0;
  private evictedByBudget = 0;
  private loads = 0;
  private takes = 0;
  /** Unpacked prefix states by prefix key, most recently used last. */
  private readonly bases = new Map<string, { rawHash: string; raw: Uint8Array }>();

  constructor(
    readonly root: string,
    readonly fingerprint: string,
    readonly budgetBytes: number,
    private readonly now: () => number = Date.now,
  ) {
    this.dir = join(root, fingerprint);
    try {
      mkdirSync(this.dir, { recursive: true });
    } catch {
      this.unwritableUntil = Number.POSITIVE_INFINITY;
    }
    this.scan();
  }

  /** A file name for a key: no player id ever appears in a path. */
  static id(kind: SnapshotKind, key: string): string {
    return createHash("sha256").update(`${kind}\0${key}`).digest("hex").slice(0, 32);
  }

  get writable(): boolean {
    return this.now() >= this.unwritableUntil;
  }

  stats(): SnapshotStoreStats {
    let bytes = 0;
    for (const e of this.entries.values()) bytes += e.bytes;
    return { files: this.entries.size, bytes, budgetBytes: this.budgetBytes, writable: this.writable, refused: this.refused, evictedByBudget: this.evictedByBudget };
  }

  /**
   * The snapshot of `key` made by this model, checked (header, token list, fingerprint), or null.
   * A snapshot that fails a check is deleted: it can never become valid.
   */
  async lookup(kind: SnapshotKind, key: string): Promise<SnapshotMeta | null> {
    const id = SnapshotStore.id(kind, key);
    const entry = this.entries.get(this.entryKey(this.dir, id)) ?? this.adopt(this.dir, id);
    if (!entry) return null;
    const meta = await readMeta(join(this.dir, `${id}.meta`));
    if (!meta || meta.fingerprint !== this.fingerprint || meta.kind !== kind || meta.key !== key) {
      this.refuse(entry);
      return null;
    }
    return meta;
  }

  /**
   * Hands the unpacked state to `load` (as a file: llama.cpp reads states from files) only when the
   * packed file is exactly what the meta vouches for, its base prefix snapshot is the one it was
   * packed against, and it unpacks to the state that was saved; refuses (and deletes) it otherwise.
   * Returns false when refused.
   */
  async load(meta: SnapshotMeta, load: (statePath: string) => Promise<void>): Promise<boolean> {
    const raw = await this.unpacked(meta);
    if (!raw) return false;
    const rawPath = join(this.dir, `${SnapshotStore.id(meta.kind, meta.key)}.load-${++this.loads}.tmp`);
    try {
      await writeFile(rawPath, raw);
      await load(rawPath);
    } finally {
      await rm(rawPath, { force: true }).catch(() => {});
    }
    return true;
  }

  /** The state as llama.cpp wrote it, when every check passes; null (and the snapshot deleted) otherwise. */
  private async unpacked(meta: SnapshotMeta): Promise<Uint8Array | null> {
    const entry = this.entries.get(this.entryKey(this.dir, SnapshotStore.id(meta.kind, meta.key)));
    if (!entry) return null;
    const packed = await readFile(join(this.dir, `${entry.id}.state`)).catch(() => null);
    const base = meta.base ? await this.unpackedBase(meta.base) : null;
    // A conversation whose mind's prefix snapshot is gone (evicted, or the prompt changed) can never load again.
    let raw: Uint8Array | null = null;
    if (packed && packed.length === meta.stateBytes && checksum(packed) === meta.stateHash && (base || !meta.base)) {
      raw = await unpackState(packed, base).catch(() => null);
    }
    if (!raw || raw.length !== meta.rawBytes || checksum(raw) !== meta.rawHash) {
      this.refuse(entry);
      return null;
    }
    this.touch(entry);
    return raw;
  }

  /**
   * Saves a snapshot: `write` puts llama.cpp's state at the given path, it is packed (against
   * `base`, a prefix snapshot the tokens start with, when given), then the meta vouches for it.
   * Null when skipped (disk full or read-only) or failed; never throws.
   */
  async save(kind: SnapshotKind, key: string, tokens: readonly number[], write: (statePath: string) => Promise<void>, base: SnapshotMeta | null = null): Promise<SnapshotMeta | null> {
    const raw = await this.take(write);
    return raw ? this.commit(kind, key, tokens, raw, base) : null;
  }

  /**
   * The state as llama.cpp writes it (`write` puts it at the given path), read into memory: the part of a
   * save that needs the sequence. Null when skipped (disk full or read-only) or failed; never throws.
   */
  async take(write: (statePath: string) => Promise<void>): Promise<Uint8Array | null> {
    if (!this.writable) return null;
    const rawState = join(this.dir, `take-${process.pid}-${++this.takes}.raw.tmp`);
    try {
      mkdirSync(this.dir, { recursive: true });
      await write(rawState);
      return await readFile(rawState);
    } catch (e) {
      this.failed(e);
      return null;
    } finally {
      await rm(rawState, { force: true }).catch(() => {});
    }
  }

  /**
   * Packs a state `take` read (against `base`, a prefix snapshot the tokens start with, when given) and
   * writes it, then the meta that vouches for it. Null when skipped or failed; never throws.
   */
  async commit(kind: SnapshotKind, key: string, tokens: readonly number[], raw: Uint8Array, base: SnapshotMeta | null = null): Promise<SnapshotMeta | null> {
    if (!this.writable) return null;
    const id = SnapshotStore.id(kind, key);
    const metaPath = join(this.dir, `${id}.meta`);
    const statePath = join(this.dir, `${id}.state`);
    const tmpState = `${statePath}.${++this.takes}.tmp`;
    try {
      mkdirSync(this.dir, { recursive: true });
      const dictionary = base ? await this.unpackedBase({ key: base.key, rawHash: base.rawHash }) : null;
      await writeFile(tmpState, await packState(raw, dictionary));
      // Nothing vouches for the old state while the new one replaces it.
      await rm(metaPath, { force: true });
      await rename(tmpState, statePath);
      const header = { fingerprint: this.fingerprint, kind, key, rawBytes: raw.length, rawHash: checksum(raw), base: dictionary && base ? { key: base.key, rawHash: base.rawHash } : null, savedAt: this.now() };
      const meta = await writeMeta(metaPath, statePath, header, tokens);
      if (kind === "prefix") this.bases.delete(key);
      this.entries.set(this.entryKey(this.dir, id), { dir: this.dir, id, bytes: fileBytes(metaPath) + meta.stateBytes, lastUsed: this.now() });
      this.enforceBudget(this.entryKey(this.dir, id));
      return this.entries.has(this.entryKey(this.dir, id)) ? meta : null;
    } catch (e) {
      this.failed(e);
      this.removeFiles(this.dir, id);
      this.entries.delete(this.entryKey(this.dir, id));
      await rm(tmpState, { force: true }).catch(() => {});
      return null;
    }
  }

  /** A full or read-only disk turns saving off for a while. */
  private failed(e: unknown): void {
    const code = (e as { code?: string }).code;
    if (code && DISK_FULL.has(code)) this.unwritableUntil = this.now() + UNWRITABLE_BACKOFF_MS;
  }

  /**
   * A prefix snapshot's state, unpacked, when it is still the one named (same unpacked checksum):
   * the dictionary of the conversations packed against it. Using it counts as using the prefix, so
   * a mind's prefix stays while its players' conversations are being restored. The last few are
   * kept in memory: every save and restore of a mind's players needs the same one.
   */
  private async unpackedBase(ref: { key: string; rawHash: string }): Promise<Uint8Array | null> {
    const cached = this.bases.get(ref.key);
    if (cached && cached.rawHash === ref.rawHash) {
      this.bases.delete(ref.key);
      this.bases.set(ref.key, cached);
      const entry = this.entries.get(this.entryKey(this.dir, SnapshotStore.id("prefix", ref.key)));
      if (entry) {
        this.touch(entry);
        return cached.raw;
      }
    }
    this.bases.delete(ref.key);
    const meta = await this.lookup("prefix", ref.key);
    if (!meta || meta.rawHash !== ref.rawHash || meta.base) return null;
    const raw = await this.unpacked(meta);
    if (!raw) return null;
    this.bases.delete(ref.key);
    this.bases.set(ref.key, { rawHash: ref.rawHash, raw });
    if (this.bases.size > BASES_IN_MEMORY) this.bases.delete(this.bases.keys().next().value!);
    return raw;
  }

  /** Deletes every snapshot (any fingerprint) whose header matches; returns how many. */
  deleteWhere(match: (header: SnapshotHeader) => boolean): number {
    let n = 0;
    for (const [k, e] of [...this.entries]) {
      const header = readHeader(join(e.dir, `${e.id}.meta`));
      if (header && !match(header)) continue;
      // an unreadable meta is garbage anyway
      this.removeFiles(e.dir, e.id);
      this.entries.delete(k);
      if (header) n++;
    }
    return n;
  }

  /** Deletes one snapshot of this fingerprint. */
  delete(kind: SnapshotKind, key: string): void {
    const id = SnapshotStore.id(kind, key);
    this.removeFiles(this.dir, id);
    this.entries.delete(this.entryKey(this.dir, id));
  }

  /** Removes this fingerprint's folder when it holds nothing (a store opened only to erase). */
  dropIfEmpty(): void {
    try {
      if (readdirSync(this.dir).length === 0) rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // nothing to drop
    }
  }

  private refuse(entry: Entry): void {
    this.refused++;
    this.removeFiles(entry.dir, entry.id);
    this.entries.delete(this.entryKey(entry.dir, entry.id));
  }

  private touch(entry: Entry): void {
    entry.lastUsed = this.now();
    try {
      const t = new Date(entry.lastUsed);
      utimesSync(join(entry.dir, `${entry.id}.meta`), t, t);
    } catch {
      // recency survives a restart only as a hint
    }
  }

  /** Least recently used first until the total fits; `keep` (the one just saved) goes last. */
  private enforceBudget(keep: string): void {
    let total = 0;
    for (const e of this.entries.values()) total += e.bytes;
    if (total <= this.budgetBytes) return;
    const byAge = [...this.entries].sort(([ka, a], [kb, b]) => (ka === keep ? 1 : kb === keep ? -1 : a.lastUsed - b.lastUsed));
    for (const [k, e] of byAge) {
      if (total <= this.budgetBytes) break;
      this.removeFiles(e.dir, e.id);
      this.entries.delete(k);
      total -= e.bytes;
      this.evictedByBudget++;
    }
  }

  /** Indexes what is on disk (every fingerprint) and clears leftovers of interrupted saves. */
  private scan(): void {
    let dirs: string[];
    try {
      dirs = readdirSync(this.root);
    } catch {
      return;
    }
    for (const name of dirs) {
      const dir = join(this.root, name);
      let files: string[];
      try {
        if (!statSync(dir).isDirectory()) continue;
        files = readdirSync(dir);
      } catch {
        continue;
      }
      const metas = new Set(files.filter((f) => f.endsWith(".meta")).map((f) => f.slice(0, -5)));
      for (const f of files) {
        const id = f.replace(/\.(meta|state)(\.tmp)?$/, "");
        const orphan = f.endsWith(".tmp") || (f.endsWith(".state") && !metas.has(id));
        if (orphan) rmSync(join(dir, f), { force: true });
      }
      for (const id of metas) if (!this.adopt(dir, id)) this.removeFiles(dir, id);
    }
  }

  /** Indexes a snapshot found on disk (at start, or written by another process since). */
  private adopt(dir: string, id: string): Entry | null {
    try {
      const meta = statSync(join(dir, `${id}.meta`));
      const state = statSync(join(dir, `${id}.state`));
      const entry = { dir, id, bytes: meta.size + state.size, lastUsed: meta.mtimeMs };
      this.entries.set(this.entryKey(dir, id), entry);
      return entry;
    } catch {
      return null;
    }
  }

  private removeFiles(dir: string, id: string): void {
    for (const ext of [".meta", ".state"]) {
      try {
        rmSync(join(dir, `${id}${ext}`), { force: true });
      } catch {
        // a read-only disk keeps it; the index forgets it
      }
    }
  }

  private entryKey(dir: string, id: string): string {
    return `${dir}\0${id}`;
  }
}

function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
