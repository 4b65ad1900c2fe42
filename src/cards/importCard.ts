import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import type { ServiceContext } from "../core/context.ts";
import { ApiError, isApiError, notFound } from "../core/errors.ts";
import { exportPack } from "../packs/exportPack.ts";
import { importPack } from "../packs/importPack.ts";
import { loadSnapshot } from "../packs/projectSnapshot.ts";
import { INVALID_PACK, type ImportOptions, type ImportResult } from "../packs/types.ts";
import { getProject } from "../projects/projectService.ts";
import { bookToPack, cardToPack } from "./cardToPack.ts";
import { INVALID_CARD, INVALID_LOREBOOK, type EntryReport } from "./cardTypes.ts";
import { readCardBytes, type CardFormat } from "./readCardBytes.ts";
import { PNG_LIMITS } from "./png/readPngText.ts";

export interface CardImportOptions extends ImportOptions {
  /** a lorebook only: the mind (id) that gets the book's tag, so it sees the entries */
  mindId?: string;
  /** names the project (a card: its character) or book when nothing else does */
  fileName?: string;
}

export interface CardImportResult extends ImportResult {
  kind: "card" | "lorebook";
  format: CardFormat;
  /** the tag the entries carry (and the mind's knowledge tag) */
  tag: string;
  /** the card's mind, or the lorebook's mind when one was given */
  mindId: string | null;
  /** lorebook entries imported as documents, and as the mind's always-known text (a card's constant entries) */
  entries: { documents: number; constant: number; disabled: number };
  /** per lorebook entry, in the file's order: what it became (`mapped`) and what had no equivalent (`notMapped`) */
  mapping: EntryReport[];
  /** every `notMapped` item as one line, "entry path: what was left out and why" (empty when all came along) */
  warnings: string[];
}

const warningsOf = (mapping: EntryReport[]) => mapping.flatMap((m) => m.notMapped.map((n) => `${m.entry}: ${n}`));

/**
 * Imports a Character Card (V1/V2/V3, JSON or PNG) or a lorebook through
 * the lore-pack writer: idempotent by key, all or nothing, problems named in
 * the card's own terms.
 */
export function importCardBytes(ctx: ServiceContext, bytes: Uint8Array, opts: CardImportOptions = {}): CardImportResult {
  const parsed = readCardBytes(bytes);
  if (opts.projectId) getProject(ctx, opts.projectId); // 404 Project not found
  const fallbackName = opts.fileName ? basename(opts.fileName, extname(opts.fileName)) : null;
  if (parsed.kind === "card") {
    if (opts.mindId) throw new ApiError(400, INVALID_CARD, { details: ["mind: only a lorebook is attached to an existing mind; a card makes its own"] });
    const card = parsed.card;
    const plan = cardToPack(card, opts.projectId ? null : card.name);
    const r = run(ctx, plan.pack, opts, plan.relabel, INVALID_CARD);
    const entries = card.book?.entries ?? [];
    return {
      ...r,
      kind: "card",
      format: parsed.format,
      tag: plan.pack.tags![0].name,
      mindId: r.ids.minds[plan.mindKey],
      entries: {
        documents: entries.filter((e) => !(e.constant && e.enabled)).length,
        constant: entries.filter((e) => e.constant && e.enabled).length,
        disabled: entries.filter((e) => !e.enabled).length,
      },
      mapping: plan.entries,
      warnings: warningsOf(plan.entries),
    };
  }
  const book = parsed.book;
  const bookName = book.name ?? fallbackName ?? "lorebook";
  let attach = null;
  if (opts.mindId) {
    if (!opts.projectId) throw new ApiError(400, INVALID_LOREBOOK, { details: ["mind: give the project of the mind too"] });
    const key = loadSnapshot(ctx, opts.projectId).minds.keyOf.get(opts.mindId);
    attach = key ? (exportPack(ctx, opts.projectId).minds?.find((m) => m.key === key) ?? null) : null;
    if (!attach) throw notFound("Entity Mind");
  }
  const plan = bookToPack(book, bookName, opts.projectId ? null : bookName, attach);
  const r = run(ctx, plan.pack, opts, plan.relabel, INVALID_LOREBOOK);
  return {
    ...r,
    kind: "lorebook",
    format: parsed.format,
    tag: plan.tag,
    mindId: opts.mindId ?? null,
    entries: { documents: book.entries.length, constant: 0, disabled: book.entries.filter((e) => !e.enabled).length },
    mapping: plan.entries,
    warnings: warningsOf(plan.entries),
  };
}

function run(ctx: ServiceContext, pack: unknown, opts: ImportOptions, relabel: (p: string) => string, error: string): ImportResult {
  try {
    return importPack(ctx, pack, { projectId: opts.projectId, monthlyCredits: opts.monthlyCredits }, { relabel });
  } catch (e) {
    // the pack is ours: its problems are the card's, named in the card's terms
    if (isApiError(e) && e.error === INVALID_PACK) throw new ApiError(400, error, e.extra);
    throw e;
  }
}

/** A card or lorebook file; its size is checked before it is read. */
export async function importCardFile(ctx: ServiceContext, path: string, opts: CardImportOptions = {}): Promise<CardImportResult> {
  const info = await stat(path).catch(() => null);
  if (!info || !info.isFile()) throw new ApiError(400, INVALID_CARD, { details: [`${path}: no such file`] });
  if (info.size > PNG_LIMITS.fileBytes) throw new ApiError(400, INVALID_CARD, { details: [`${path}: larger than ${PNG_LIMITS.fileBytes} bytes`] });
  return importCardBytes(ctx, new Uint8Array(await readFile(path)), { fileName: basename(path), ...opts });
}
