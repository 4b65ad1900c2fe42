import { open, writeFile } from "node:fs/promises";
import type { ServiceContext } from "../../core/context.ts";
import { ApiError } from "../../core/errors.ts";
import { cardToPng, exportCard } from "../../cards/exportCard.ts";
import { importCardFile, type CardImportResult } from "../../cards/importCard.ts";
import { looksLikeCard } from "../../cards/readCardBytes.ts";
import { mindRows } from "../../lore/minds/mindStore.ts";
import { resolveProject } from "../../projects/projectService.ts";
import { optionalFlag, requireFlag } from "../args.ts";
import { UsageError, type Command, type CommandContext, type CommandResult } from "../cliTypes.ts";

/** A mind by id or exact name, within the project. */
export function resolveMind(ctx: ServiceContext, projectId: string, idOrName: string): string {
  const minds = mindRows(ctx.db, projectId);
  if (minds.some((m) => m.id === idOrName)) return idOrName;
  const named = minds.filter((m) => m.entity_name === idOrName);
  if (named.length === 0) throw new ApiError(404, "Entity Mind not found");
  if (named.length > 1) throw new ApiError(400, "Invalid request", { details: [`--mind: ${named.length} minds are named '${idOrName}'; give the id`] });
  return named[0].id;
}

/** Whether `lorehold import PATH` should read PATH as a SillyTavern card or lorebook: decided by content, not name. */
export async function isCardFile(path: string): Promise<boolean> {
  const f = await open(path, "r").catch(() => null);
  if (!f) return false;
  try {
    const info = await f.stat();
    if (!info.isFile()) return false;
    const head = new Uint8Array(8);
    await f.read(head, 0, 8, 0);
    if (head[0] === 0x89 && head[1] === 0x50) return true; // PNG: the card reader says what is wrong with it
    if (info.size > 16 * 1024 * 1024) return false;
    return looksLikeCard(new Uint8Array(await f.readFile()));
  } finally {
    await f.close();
  }
}

export async function importCardCommand(c: CommandContext, path: string): Promise<CommandResult> {
  const ctx = c.services();
  const p = optionalFlag(c.flags, "project");
  const projectId = p ? resolveProject(ctx, p).id : undefined;
  const m = optionalFlag(c.flags, "mind");
  if (m && !projectId) throw new UsageError("--mind needs --project", "lorehold import LOREBOOK.json --project P --mind M");
  const r = await importCardFile(ctx, path, {
    projectId,
    mindId: m ? resolveMind(ctx, projectId!, m) : undefined,
    monthlyCredits: c.config.defaultMonthlyCredits,
  });
  return { json: r, text: describe(r) };
}

function describe(r: CardImportResult): string {
  const e = r.entries;
  const what = r.kind === "card" ? `character card (${r.format}) as mind ${r.mindId}` : `lorebook${r.mindId ? ` for mind ${r.mindId}` : ""}`;
  return [
    `Imported ${what} into ${r.projectId}: ${e.documents} lorebook entries as documents tagged '${r.tag}'` +
      (e.constant ? `, ${e.constant} constant entries as what the mind always knows` : "") +
      (e.disabled ? ` (${e.disabled} disabled: kept, seen by no mind)` : "") + ".",
    ...(r.warnings.length ? [`Not carried over (no Lorehold equivalent), ${r.warnings.length}:`, ...r.warnings.map((w) => `  ${w}`)] : []),
    "Documents are indexed by the running server.",
  ].join("\n");
}

export const exportCardCommand: Command = {
  name: "export-card",
  usage: "lorehold export-card --project P --mind M [--format json|png] [--out FILE] [--data-dir DIR]",
  summary: "a mind and the lore it sees as a SillyTavern Character Card V2 (JSON, or PNG with --out)",
  async run(c) {
    const format = optionalFlag(c.flags, "format") ?? "json";
    if (format !== "json" && format !== "png") throw new UsageError("--format must be json or png", this.usage);
    const out = optionalFlag(c.flags, "out");
    if (format === "png" && !out) throw new UsageError("--format png needs --out FILE", this.usage);
    const ctx = c.services();
    const projectId = resolveProject(ctx, requireFlag(c.flags, "project", this.usage)).id;
    const card = exportCard(ctx, projectId, resolveMind(ctx, projectId, requireFlag(c.flags, "mind", this.usage)));
    if (!out) return { json: card, text: JSON.stringify(card, null, 2) };
    await writeFile(out, format === "png" ? cardToPng(card) : `${JSON.stringify(card, null, 2)}\n`);
    const n = card.data.character_book?.entries.length ?? 0;
    return { json: { written: out, format, name: card.data.name, entries: n }, text: `Wrote ${out}: ${card.data.name} with ${n} lorebook entries.` };
  },
};
