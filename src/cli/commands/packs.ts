import { importPath } from "../../packs/importPack.ts";
import { exportPack, serializePack } from "../../packs/exportPack.ts";
import { resolveProject } from "../../projects/projectService.ts";
import { optionalFlag, requireFlag } from "../args.ts";
import { UsageError, type Command } from "../cliTypes.ts";
import { importCardCommand, isCardFile } from "./cards.ts";

export const importCommand: Command = {
  name: "import",
  usage: "lorehold import FILE|DIR [--project P] [--mind M] [--data-dir DIR] [--json]",
  summary: "import a lore pack (YAML/JSON), a folder of Markdown lore, or a SillyTavern card (PNG/JSON) or lorebook; idempotent by key",
  async run(c) {
    const path = c.positionals[0];
    if (!path) throw new UsageError("missing FILE", this.usage);
    if (await isCardFile(path)) return importCardCommand(c, path);
    const ctx = c.services();
    const p = optionalFlag(c.flags, "project");
    const r = await importPath(ctx, path, {
      projectId: p ? resolveProject(ctx, p).id : undefined,
      monthlyCredits: c.config.defaultMonthlyCredits,
    });
    const n = (o: Record<string, string>) => Object.keys(o).length;
    return {
      json: r,
      text: `Imported into ${r.projectId}: ${n(r.ids.minds)} minds, ${n(r.ids.documents)} documents, ${n(r.ids.locations)} locations, ${n(r.ids.tags)} tags, ${n(r.ids.relationshipTypes)} relationship types, ${n(r.ids.relationships)} relationships.\nDocuments are indexed by the running server.`,
    };
  },
};

export const exportCommand: Command = {
  name: "export",
  usage: "lorehold export --project P [--format yaml|json] [--data-dir DIR] [--json]",
  summary: "print a project as a lore pack",
  run(c) {
    const format = optionalFlag(c.flags, "format") ?? (c.json ? "json" : "yaml");
    if (format !== "yaml" && format !== "json") throw new UsageError("--format must be yaml or json", this.usage);
    const ctx = c.services();
    const pack = exportPack(ctx, resolveProject(ctx, requireFlag(c.flags, "project", this.usage)).id);
    return { json: pack, text: serializePack(pack, format).trimEnd() };
  },
};
