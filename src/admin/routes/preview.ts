import { Elysia, t } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { ApiError } from "../../core/errors.ts";
import { interactionCostMicro, microToCredits } from "../../credits/prices.ts";
import { prepareTurn } from "../../npc/prepareTurn.ts";
import { chatTokens } from "../../npc/tokenBudget.ts";
import { validateInteract } from "../../npc/validateInteract.ts";
import { projectParam } from "../adminGuard.ts";
import { adminDetail } from "./crud.ts";
import { readJsonBody } from "../../http/readJsonBody.ts";
import { previewBehaviour } from "../../behaviour/prepareBehaviour.ts";

/**
 * The retrieval trace: what the model would see for this request and why,
 * without generating or charging. Studios debug their lore with it; it is
 * also how knowledge scoping is shown from outside.
 */
export function previewRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-preview" }).post(
    "/projects/:projectId/interact-preview",
    async ({ params, request }) => {
      const projectId = projectParam(ctx, params.projectId);
      const req = validateInteract(await readJsonBody(request));
      const p = await prepareTurn(ctx, projectId, req);
      const promptTokens = chatTokens(ctx, p.messages, p.mind.entityName);
      const newIds = new Set(p.newLore.map((l) => l.chunkId));
      const earlier = p.history.flatMap((m) => m.notes?.lore ?? []).filter((l) => !newIds.has(l.chunkId));
      return {
        prompt: p.messages,
        lore: [
          ...p.newLore.map((l) => ({ documentId: l.documentId, documentName: l.documentName, chunkIndex: l.chunkIndex, score: l.score, tags: l.tags, turn: "this" as const, ...secretOf(l) })),
          ...earlier.map((l) => ({ documentId: l.documentId, documentName: l.documentName, chunkIndex: l.chunkIndex, score: null, tags: l.tags, turn: "earlier" as const, ...secretOf(l) })),
          // The mind's shared lore (in the system message, the same for every player: docs/models-and-performance.md, "Warm conversations").
          ...p.sharedLore.map((l) => ({ documentId: l.documentId, documentName: l.documentName, chunkIndex: l.chunkIndex, score: null, tags: l.tags, turn: "shared" as const, ...secretOf(l) })),
        ],
        memories: p.history.flatMap((m) => m.notes?.memories ?? []).concat(p.newMemories),
        // the mind's world memories (src/events): kept from earlier turns, and new this turn
        worldMemories: [
          ...p.history.flatMap((m) => m.notes?.events ?? []).map((e) => ({ ...e, turn: "earlier" as const })),
          ...(p.turn.notes?.events ?? []).map((e) => ({ ...e, turn: "this" as const })),
        ],
        warnings: p.warnings,
        visibleTags: p.visible,
        // World state (docs/internals/turn-pipeline.md): the scope the conditions read, the mind's conditional
        // knowledge and every document with a condition or timer, in or out and why.
        conditions: {
          scope: {
            player: Object.fromEntries(p.conditions.scope.player),
            world: Object.fromEntries(p.conditions.scope.world),
            defaults: Object.fromEntries(p.conditions.scope.defaults),
            trust: p.conditions.scope.trust,
            turn: p.conditions.scope.turn,
          },
          knowledge: p.conditions.knowledge,
          // conditional hints and restrictions: which apply this turn (in the turn's [Now] block) and which do not
          lines: p.conditions.lines,
          documents: p.conditions.lore.trace,
        },
        promptTokens,
        replyTokens: p.replyTokens,
        // how the prompt was fitted to the generation context, and what the static prompt left out for it
        budget: p.budget,
        estimatedCredits: microToCredits(interactionCostMicro(ctx.config.prices, promptTokens, p.replyTokens + (p.behaviour?.maxTokens ?? 0))),
        // a mind with behaviour: the actions this turn offers (and why not the others) and its tail's grammar
        ...(p.behaviour ? { behaviour: previewBehaviour(p.behaviour) } : {}),
      };
    },
    {
      parse: "none",
      params: t.Object({ projectId: t.String() }),
      detail: adminDetail(
        "Preview an interaction: the prompt, the lore retrieved and why, memories, warnings, the condition scope (world and player state) with every conditional document in or out and why, and the cost estimate; nothing is generated or charged",
      ),
    },
  );
}

/**
 * A note that is the mind's secret says so in the trace (src/npc/secrets): known, kept, never volunteered; or, while
 * its document's `reveal` condition holds for this turn, `revealed` (in the prompt as any other note, not guarded).
 */
function secretOf(l: { secret?: boolean; revealed?: boolean }): { secret?: true; revealed?: true } {
  if (!l.secret) return {};
  return l.revealed ? { secret: true, revealed: true } : { secret: true };
}
