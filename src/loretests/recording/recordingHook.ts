import type { ServiceContext } from "../../core/context.ts";
import type { Logger } from "../../ops/logger.ts";
import type { PreparedTurn } from "../../npc/prepareTurn.ts";
import { recordTurn } from "./recordTurn.ts";

/**
 * What the interact route hands the interact service to record a served turn: `onPrepared` keeps the turn's
 * trace, `done` records it once the reply is settled. Recording is a side line of the reply: its failure is
 * logged and never reaches the player.
 */
export function turnRecorder(ctx: ServiceContext & { log: Logger }, projectId: string, req: { entityMindId: string; playerId: string; text: string }) {
  let prepared: PreparedTurn | null = null;
  return {
    onPrepared: (p: PreparedTurn) => {
      prepared = p;
    },
    done: (reply: { response: string }) => {
      const p = prepared;
      if (!p) return;
      try {
        recordTurn(ctx, {
          projectId,
          mindId: p.mind.id,
          playerId: req.playerId,
          player: req.text,
          reply: reply.response,
          sessionStart: p.history.length === 0,
          lore: [...p.sharedLore, ...p.newLore],
          promptText: p.messages.map((m) => m.content).join("\n"),
        });
      } catch (e) {
        ctx.log.warn("recording a conversation failed", { err: e instanceof Error ? e.message : String(e) });
      }
    },
  };
}
