import { Elysia, t } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { ErrorBody } from "../../http/commonSchemas.ts";
import { erasePlayer, exportPlayerData, listMemories } from "../../npc/memory/memoryAdmin.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail } from "./crud.ts";
import { StateMapModel } from "../../state/stateModels.ts";

const MemoryView = t.Object({
  id: t.String(),
  text: t.String(),
  importance: t.Integer({ minimum: 1, maximum: 10 }),
  topics: t.Array(t.String()),
  createdAt: t.String(),
  updatedAt: t.String(),
  entityMindId: t.String(),
  playerId: t.String(),
});

const ExportView = t.Object({
  playerId: t.String(),
  exportedAt: t.String(),
  memories: t.Array(MemoryView),
  sessions: t.Array(t.Object({ entityMindId: t.String(), messages: t.Array(t.Unknown()), updatedAt: t.String() })),
  state: StateMapModel,
});

const EraseView = t.Object({ playerId: t.String(), memoriesDeleted: t.Integer(), sessionsDeleted: t.Integer(), stateKeysDeleted: t.Integer() });

const params = t.Object({ projectId: t.String(), playerId: t.String() });
const errors = { 401: ErrorBody, 404: ErrorBody } as const;

/** A player's memories: list, export, erase (the right to be forgotten). */
export function memoryRoutes(ctx: AppContext) {
  const base = "/projects/:projectId/players/:playerId";
  return new Elysia({ name: "admin-memories" })
    .get(
      `${base}/memories`,
      ({ params: p, query }) => ({
        memories: listMemories(ctx, projectParam(ctx, p.projectId), p.playerId, { mindId: query.entityMindId || undefined }),
      }),
      {
        params,
        query: t.Object({ entityMindId: t.Optional(t.String({ description: "only the memories of this Entity Mind" })) }),
        response: { 200: t.Object({ memories: t.Array(MemoryView) }), ...errors },
        detail: adminDetail("List a player's memories"),
      },
    )
    .get(`${base}/export`, ({ params: p }) => exportPlayerData(ctx, projectParam(ctx, p.projectId), p.playerId), {
      params,
      response: { 200: ExportView, ...errors },
      detail: adminDetail("Export everything kept about a player (memories, sessions and state)"),
    })
    .delete(
      `${base}/memories`,
      async ({ params: p }) => ({ playerId: p.playerId, ...(await erasePlayer(ctx, projectParam(ctx, p.projectId), p.playerId)) }),
      {
        params,
        response: { 200: EraseView, ...errors },
        detail: adminDetail("Erase a player's memories, sessions and state (right to be forgotten)"),
      },
    );
}
