import { dataPaths } from "../../config/config.ts";
import { forgetPlayerKv } from "../../llm/kv/forgetPlayer.ts";
import { requestKvForget } from "../../llm/kv/forgetRequestStore.ts";
import { resolveProject } from "../../projects/projectService.ts";
import type { ServiceContext } from "../../core/context.ts";
import { erasePlayerRows, exportPlayerData, listMemories } from "../../npc/memory/memoryAdmin.ts";
import { optionalFlag, requireFlag } from "../args.ts";
import { mindIdByIdOrKey } from "../../lore/minds/mindStore.ts";
import type { Command } from "../cliTypes.ts";

/** A mind by id or by its key in the project; an unknown value is used as given (it then matches nothing). */
function resolveMindId(ctx: ServiceContext, projectId: string, idOrKey: string): string {
  return mindIdByIdOrKey(ctx.db, projectId, idOrKey) ?? idOrKey;
}

const memoriesListCommand: Command = {
  name: "memories list",
  usage: "lorehold memories list --project P --player X [--mind M] [--data-dir DIR] [--json]",
  summary: "list a player's memories (optionally with one Entity Mind, by id or key)",
  run(c) {
    const [projectArg, player] = [requireFlag(c.flags, "project", this.usage), requireFlag(c.flags, "player", this.usage)];
    const mind = optionalFlag(c.flags, "mind");
    const ctx = c.services();
    const project = resolveProject(ctx, projectArg);
    const memories = listMemories(ctx, project.id, player, { mindId: mind ? resolveMindId(ctx, project.id, mind) : undefined });
    return {
      json: { memories },
      text: memories.length
        ? memories.map((m) => `${m.id}  ${m.entityMindId}  [${m.importance}]  ${m.text}${m.topics.length ? `  (${m.topics.join(", ")})` : ""}`).join("\n")
        : `No memories of player ${player} in ${project.name}.`,
    };
  },
};

const memoriesExportCommand: Command = {
  name: "memories export",
  usage: "lorehold memories export --project P --player X [--data-dir DIR] [--json]",
  summary: "export everything kept about a player (memories, sessions and state) as JSON",
  run(c) {
    const [projectArg, player] = [requireFlag(c.flags, "project", this.usage), requireFlag(c.flags, "player", this.usage)];
    const ctx = c.services();
    const data = exportPlayerData(ctx, resolveProject(ctx, projectArg).id, player);
    return { json: data };
  },
};

const memoriesEraseCommand: Command = {
  name: "memories erase",
  usage: "lorehold memories erase --project P --player X [--data-dir DIR] [--json]",
  summary: "erase a player's memories, sessions and state (their vectors are purged by the server)",
  run(c) {
    const [projectArg, playerId] = [requireFlag(c.flags, "project", this.usage), requireFlag(c.flags, "player", this.usage)];
    const ctx = c.services();
    const project = resolveProject(ctx, projectArg);
    // Only the server writes LanceDB: the rows go now, the vectors at the server's next memory purge.
    const r = erasePlayerRows(ctx, project.id, playerId);
    // KV snapshots on disk go too; a running server drops its in-memory copy at its next kv-forget tick (llm/kv/forgetRequestStore.ts).
    forgetPlayerKv({ kvDir: dataPaths(c.config).kv }, project.id, playerId);
    requestKvForget(ctx.db, project.id, playerId, new Date().toISOString());
    return {
      json: { playerId, memoriesDeleted: r.memoriesDeleted, sessionsDeleted: r.sessionsDeleted, stateKeysDeleted: r.stateKeysDeleted },
      text:
        `Erased ${r.memoriesDeleted} memor${r.memoriesDeleted === 1 ? "y" : "ies"}, ${r.sessionsDeleted} session${r.sessionsDeleted === 1 ? "" : "s"} ` +
        `and ${r.stateKeysDeleted} state key${r.stateKeysDeleted === 1 ? "" : "s"} ` +
        `of player ${playerId} in ${project.name}.` +
        (r.memoriesDeleted ? "\nTheir search vectors are removed by the server's memory purge job." : ""),
    };
  },
};

/** `memories list|export|erase --project P --player X`. */
export const memoryCommands: Command[] = [memoriesListCommand, memoriesExportCommand, memoriesEraseCommand];
