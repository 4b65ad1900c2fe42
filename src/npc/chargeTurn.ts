import { ApiError } from "../core/errors.ts";
import type { ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { release, settle } from "../credits/ledger.ts";
import { saveSession } from "./session/sessionStore.ts";
import { countInteraction, mindProfileRow } from "../lore/minds/mindStore.ts";
import type { SessionMessage } from "./session/sessionTypes.ts";

/**
 * The charging rule of an interaction (docs/wiring-a-game.md, "Credits"): a request is charged only when its caller
 * gets what it paid for — a 200 reply, or a stream that delivered tokens. Everything else (a
 * generation that failed or timed out with no text, a caller who left before any token, a mind
 * deleted while it generated) releases the whole reservation. Every settled amount is therefore a
 * `creditsUsed` some caller was told about, and the ledger reconciles with the responses.
 */

/**
 * Ends a successful turn in one transaction: the mind must still exist (a mind deleted while it
 * generated is 404 `Entity Mind not found`, with the hold released and nothing saved), then the
 * reservation is settled, the session saved and the mind's interaction count raised — all or nothing.
 * A session given as a function is made inside the transaction (a typed turn settles its trust and
 * cooldowns there, and the session keeps what they settled).
 * `alsoInTx` joins the same transaction (a memory checkpoint queues the session's summary there).
 */
export function settleTurn(
  ctx: ServiceContext,
  hold: { reservationId: string },
  charge: number,
  key: { projectId: string; mindId: string; playerId: string },
  session: SessionWrite | (() => SessionWrite),
  alsoInTx?: () => void,
): void {
  try {
    writeTx(ctx.db, () => {
      if (!mindProfileRow(ctx.db, key.projectId, key.mindId)) throw new ApiError(404, "Entity Mind not found");
      settle(ctx, hold.reservationId, charge);
      saveSession(ctx, key, typeof session === "function" ? session() : session);
      countInteraction(ctx.db, key.mindId);
      alsoInTx?.();
    });
  } catch (e) {
    releaseQuietly(ctx, hold.reservationId);
    throw e;
  }
}

type SessionWrite = { messages: SessionMessage[]; tokenCount: number };

/** Gives the hold back; a reservation already closed (e.g. by a sweep) stays as it is. */
export function releaseQuietly(ctx: ServiceContext, reservationId: string): void {
  try {
    release(ctx, reservationId);
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 409)) throw e;
  }
}
