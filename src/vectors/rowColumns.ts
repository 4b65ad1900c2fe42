/**
 * The project vector cache's rows apart from their float32 vectors, one typed array per field across many
 * documents (every document a snapshot file restores shares one; a document written since has its own).
 *
 * Why columns: a cache of 100,000 one-chunk documents kept per document an object, its id, name and tag set as
 * strings and arrays, and its scales, tag bits and id ends as small typed arrays of their own (~0.9 KB a document
 * in the heap, bench/rss-account.ts counted 536k strings and 300k typed arrays); here a row costs a few bytes in
 * each column, its id's characters in one string of all ids, and each distinct name, location and tag once in one
 * string of all of them. Row values come back as they went in (the read paths' answers do not change); a name or an
 * id is cut out of its string when a search hands a row out.
 */
export class RowColumns {
  private readonly tagCache: (string[] | undefined)[];
  /**
   * rows of documents deleted or replaced since these columns were made, or moved to other columns by a compaction
   * (columnCompaction.ts): what the live documents do not use
   */
  deadRows = 0;

  constructor(
    readonly rows: number,
    /** every row's id end to end, and where each ends */
    private readonly ids: string,
    readonly idEnd: Uint32Array,
    /** the distinct names, locations and tags end to end, and where each ends */
    private readonly text: string,
    private readonly textEnd: Uint32Array,
    /** per row: its name's and location's string number (-1: no location), its chunk number, its tag set */
    readonly name: Uint32Array,
    readonly loc: Int32Array,
    readonly chunkIndex: Int32Array,
    readonly tagSet: Uint32Array,
    /** the distinct tag sets, each a run of string numbers: set s is members[setEnd[s-1] … setEnd[s]] */
    private readonly setEnd: Uint32Array,
    private readonly members: Uint32Array,
    /** per row: the scale that turns its codes back into values, a bit per tag, and 1 when some tag has no bit */
    readonly scales: Float32Array,
    readonly tagBits: Uint32Array,
    readonly overflow: Uint8Array | null,
    /** estimated bytes of what the rows share (strings, tag sets, the arrays' headers) */
    readonly sharedBytes: number,
  ) {
    this.tagCache = new Array(setEnd.length);
  }

  id(i: number): string {
    return this.ids.slice(i === 0 ? 0 : this.idEnd[i - 1], this.idEnd[i]);
  }

  /** Where row i's id starts in the string of all ids. */
  idStart(i: number): number {
    return i === 0 ? 0 : this.idEnd[i - 1];
  }

  /** The ids of rows `at` … `at + n`, end to end. */
  idRun(at: number, n: number): string {
    return n === 0 ? "" : this.ids.slice(this.idStart(at), this.idEnd[at + n - 1]);
  }

  /** How many distinct strings and tag sets the rows use. */
  get stringCount(): number {
    return this.textEnd.length;
  }

  get setCount(): number {
    return this.setEnd.length;
  }

  string(k: number): string {
    return this.text.slice(k === 0 ? 0 : this.textEnd[k - 1], this.textEnd[k]);
  }

  /** Tag set s as strings: made once, then shared (the caller copies before handing it out). */
  tags(s: number): string[] {
    let t = this.tagCache[s];
    if (t === undefined) {
      t = [];
      for (let j = s === 0 ? 0 : this.setEnd[s - 1]; j < this.setEnd[s]; j++) t.push(this.string(this.members[j]));
      this.tagCache[s] = t;
    }
    return t;
  }

  /** Estimated bytes of one row's own fields: id end, name, location, chunk, tag set, scale, tag bits (and overflow). */
  get rowBytes(): number {
    return 7 * 4 + (this.overflow ? 1 : 0);
  }
}

/** Estimated bytes of a JS string of `n` one-byte characters, and of an object or typed array's own header. */
const stringBytes = (n: number) => 24 + n;
const ARRAY_HEADER = 64;

/**
 * Fills a RowColumns row by row. Strings are interned as they come (a document's rows usually share a name, a
 * location and a tag set; a project's documents share their tags); codes and scales are written by the caller at
 * `scales` (the codes are the blocks' own: DocumentBlock.codeArr).
 */
export class ColumnsBuilder {
  private next = 0;
  /** ids and distinct strings since the last `seal`, and what the seals joined before */
  private readonly idParts: string[] = [];
  private readonly idChunks: string[] = [];
  private readonly idEnd: Uint32Array;
  private idLength = 0;
  private readonly strings: string[] = [];
  private readonly textChunks: string[] = [];
  private readonly textEnds: number[] = [];
  private textLength = 0;
  private readonly stringOf = new Map<string, number>();
  private readonly name: Uint32Array;
  private readonly loc: Int32Array;
  private readonly chunkIndex: Int32Array;
  private readonly tagSet: Uint32Array;
  private readonly setOf = new Map<string, number>();
  private readonly setMembers: number[] = [];
  private readonly setEnd: number[] = [];
  private readonly setBits: number[] = [];
  private readonly setOverflow: boolean[] = [];
  private readonly tagBits: Uint32Array;
  private overflow: Uint8Array | null = null;
  readonly scales: Float32Array;
  private prevTags: readonly string[] | null = null;
  private prevSet = 0;
  /** per source of copied rows: its string and tag set numbers to this builder's */
  private readonly from = new Map<RowColumns, { strings: Remap; sets: Remap }>();

  constructor(
    readonly rows: number,
    /** a tag's bit in the cache, or null when it has none (past the 32nd) */
    private readonly bitOf: (tag: string) => number | null,
  ) {
    this.idEnd = new Uint32Array(rows);
    this.name = new Uint32Array(rows);
    this.loc = new Int32Array(rows);
    this.chunkIndex = new Int32Array(rows);
    this.tagSet = new Uint32Array(rows);
    this.tagBits = new Uint32Array(rows);
    this.scales = new Float32Array(rows);
  }

  /** The number of the next row. */
  get at(): number {
    return this.next;
  }

  private intern(s: string): number {
    let k = this.stringOf.get(s);
    if (k === undefined) {
      k = this.textEnds.length;
      this.strings.push(s);
      this.textEnds.push((this.textLength += s.length));
      this.stringOf.set(s, k);
    }
    return k;
  }

  /**
   * Joins the ids and strings placed so far into one string each: a compaction seals after each slice, so that
   * `finish` joins a few dozen strings instead of a part a run of rows and a string a name (7 ms of one step at
   * 70,000 rows, measured).
   */
  seal(): void {
    if (this.idParts.length > 0) this.idChunks.push(joined(this.idParts));
    if (this.strings.length > 0) this.textChunks.push(joined(this.strings));
    this.idParts.length = 0;
    this.strings.length = 0;
  }

  /** Appends a row's fields (its codes and scale are the caller's to write at row `at`). */
  row(id: string, name: string, loc: string | null, chunkIndex: number, tags: readonly string[]): void {
    const i = this.next++;
    this.idParts.push(id);
    this.idEnd[i] = this.idLength += id.length;
    this.name[i] = this.intern(name);
    this.loc[i] = loc === null ? -1 : this.intern(loc);
    this.chunkIndex[i] = chunkIndex;
    // a row with its predecessor's tags (the common case) needs no key: a cold load places 100,000 rows
    let s: number | undefined = this.prevTags !== null && sameTags(tags, this.prevTags) ? this.prevSet : undefined;
    if (s === undefined) {
      const key = tags.join("\u0000");
      s = this.setOf.get(key);
      if (s === undefined) {
        s = this.setEnd.length;
        this.setOf.set(key, s);
        let bits = 0;
        let over = false;
        for (const tag of tags) {
          this.setMembers.push(this.intern(tag));
          const bit = this.bitOf(tag);
          if (bit === null) over = true;
          else bits |= bit;
        }
        this.setEnd.push(this.setMembers.length);
        this.setBits.push(bits);
        this.setOverflow.push(over);
      }
    }
    this.prevTags = tags;
    this.prevSet = s;
    this.tagSet[i] = s;
    this.tagBits[i] = this.setBits[s];
    if (this.setOverflow[s]) (this.overflow ??= new Uint8Array(this.rows))[i] = 1;
  }

  /**
   * Appends rows `at` … `at + n` of `src` as they are (their tag bits, overflow and scales kept): a compaction's
   * copy, or a dead document's rows taken out of the columns it shared. Their ids go as one run of the source's string.
   */
  copyRows(src: RowColumns, at: number, n: number): void {
    let map = this.from.get(src);
    if (map === undefined) this.from.set(src, (map = { strings: new Remap(src.stringCount, this.rows), sets: new Remap(src.setCount, this.rows) }));
    const run = src.idRun(at, n);
    this.idParts.push(run);
    const shift = this.idLength - src.idStart(at);
    for (let r = 0; r < n; r++) {
      const i = this.next++;
      const j = at + r;
      this.idEnd[i] = src.idEnd[j] + shift;
      this.name[i] = this.internFrom(src, map.strings, src.name[j]);
      this.loc[i] = src.loc[j] < 0 ? -1 : this.internFrom(src, map.strings, src.loc[j]);
      this.chunkIndex[i] = src.chunkIndex[j];
      const t = src.tagSet[j];
      let s = map.sets.get(t);
      if (s < 0) {
        const tags = src.tags(t);
        const key = tags.join("\u0000");
        const have = this.setOf.get(key);
        if (have !== undefined) s = have;
        else {
          s = this.setEnd.length;
          this.setOf.set(key, s);
          for (const tag of tags) this.setMembers.push(this.intern(tag));
          this.setEnd.push(this.setMembers.length);
          // a set's bits are its tags' bits in the cache, which never change once given: any of its rows has them
          this.setBits.push(src.tagBits[j]);
          this.setOverflow.push(src.overflow !== null && src.overflow[j] === 1);
        }
        map.sets.set(t, s);
      }
      this.tagSet[i] = s;
      this.tagBits[i] = src.tagBits[j];
      if (src.overflow !== null && src.overflow[j] === 1) (this.overflow ??= new Uint8Array(this.rows))[i] = 1;
      this.scales[i] = src.scales[j];
    }
    this.idLength += run.length;
    // a later row() call must not take a copied row's tags for its predecessor's
    this.prevTags = null;
  }

  private internFrom(src: RowColumns, seen: Remap, k: number): number {
    let out = seen.get(k);
    if (out < 0) seen.set(k, (out = this.intern(src.string(k))));
    return out;
  }

  finish(): RowColumns {
    if (this.next !== this.rows) throw new Error(`columns of ${this.rows} rows given ${this.next}`);
    this.seal();
    const textEnd = Uint32Array.from(this.textEnds);
    // each chunk is a string of its own already (joined), so one chunk is kept as it is
    const text = this.textChunks.length === 1 ? this.textChunks[0] : this.textChunks.join("");
    const ids = this.idChunks.length === 1 ? this.idChunks[0] : this.idChunks.join("");
    // the interned strings (often cut out of another columns' strings) and the sources copied from are let go with
    // the builder's work: a compaction's run that holds its builder may outlive it
    this.idChunks.length = 0;
    this.textChunks.length = 0;
    this.stringOf.clear();
    this.setOf.clear();
    this.from.clear();
    const shared = stringBytes(text.length) + stringBytes(ids.length) - this.idLength + this.setMembers.length * 4 + this.setEnd.length * 4 + 12 * ARRAY_HEADER + 200;
    return new RowColumns(this.rows, ids, this.idEnd, text, textEnd, this.name, this.loc, this.chunkIndex, this.tagSet, Uint32Array.from(this.setEnd), Uint32Array.from(this.setMembers), this.scales, this.tagBits, this.overflow, shared);
  }
}

/**
 * Estimated bytes of `n` rows of the columns (each row's fields, its id's characters, and its share of what the
 * rows share), plus the block object and its document id: what the cache's budget counts beside the codes.
 */
export function blockBytes(cols: RowColumns, n: number, documentId: string, idChars: number): number {
  return 120 + stringBytes(documentId.length) + n * cols.rowBytes + idChars + sharedShare(cols, n);
}

/** The share of `n` rows in what the columns' rows share (strings, tag sets, the arrays' headers). */
export function sharedShare(cols: RowColumns, n: number): number {
  return cols.rows === 0 ? 0 : Math.round((cols.sharedBytes * n) / cols.rows);
}

/** Rows `at` … `at + n` of `cols` in columns of their own. */
export function ownColumns(cols: RowColumns, at: number, n: number): RowColumns {
  const b = new ColumnsBuilder(n, () => null);
  b.copyRows(cols, at, n);
  return b.finish();
}

/**
 * A source's string or tag set numbers to a builder's (-1: not seen yet): a typed array when the builder copies many
 * rows against the source's count (a compaction looks up every row's name and location: a Map of 70,000 numbers cost
 * most of its copy), a Map when few (a dead document's rows out of columns of 100,000).
 */
class Remap {
  private readonly arr: Int32Array | null;
  private readonly map: Map<number, number> | null;

  constructor(size: number, rows: number) {
    this.arr = rows * 4 >= size ? new Int32Array(size).fill(-1) : null;
    this.map = this.arr ? null : new Map();
  }

  get(k: number): number {
    return this.arr ? this.arr[k] : (this.map!.get(k) ?? -1);
  }

  set(k: number, v: number): void {
    if (this.arr) this.arr[k] = v;
    else this.map!.set(k, v);
  }
}

/**
 * The parts end to end, in a string of their own. Why not `join` alone: the parts are often cut out of another
 * columns' string (a compaction's runs, a dead document's rows), a cut shares that string's characters, and a join
 * of one part returns the part itself, which kept the whole string it was cut from alive (10.4 MB of ids for 108
 * characters, measured); a join of two or more builds a new string.
 */
function joined(parts: string[]): string {
  return parts.length === 1 ? [parts[0], ""].join("") : parts.join("");
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
