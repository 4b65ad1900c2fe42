import { ApiError } from "../core/errors.ts";
import { nowIso, type ServiceContext } from "../core/context.ts";
import { writeTx } from "../db/openDatabase.ts";
import { mindProfileRow } from "../lore/minds/mindStore.ts";
import { INTERACT_LIMITS } from "../npc/interactLimits.ts";
import { projectBehaviours, readBehaviour } from "./behaviourStore.ts";
import { resolveTrust, trustLabel, type Behaviour, type TrustConfig } from "./resolveBehaviour.ts";
import { readTrustValue, writeTrustValue, type TrustKey } from "./trustStore.ts";

/** A player's trust in a mind, as the trust routes answer it. */
export interface TrustView {
  entityMindId: string;
  playerId: string;
  value: number;
  label: string | null;
  min: number;
  max: number;
  /** false: the player has no stored value yet (value is the mind's initial trust) */
  stored: boolean;
}

export const NO_TRUST = "Entity Mind has no trust configured";

/** The mind (in this project) and its trust settings: 404 for another project's or an unknown mind, 400 without trust. */
function trustConfigOf(ctx: ServiceContext, projectId: string, mindId: string): TrustConfig {
  if (!mindProfileRow(ctx.db, projectId, mindId)) throw new ApiError(404, "Entity Mind not found");
  const trust = resolveTrust(readBehaviour(ctx.db, projectId, mindId)?.trust);
  if (!trust) throw new ApiError(400, NO_TRUST);
  return trust;
}

function checkPlayerId(playerId: string): void {
  if (playerId.length === 0 || playerId.length > INTERACT_LIMITS.playerIdChars) {
    throw new ApiError(400, "Invalid request", { details: [`playerId: 1 to ${INTERACT_LIMITS.playerIdChars} characters`] });
  }
}

/** The value a turn starts from: the stored one, else the mind's initial trust (clamped to a range that may have changed since). */
export function currentTrust(ctx: ServiceContext, key: TrustKey, trust: TrustConfig): { value: number; stored: boolean } {
  const v = readTrustValue(ctx.db, key);
  return v === null ? { value: trust.initial, stored: false } : { value: Math.min(trust.max, Math.max(trust.min, v)), stored: true };
}

/** The player's trust as a turn's condition scope reads it (`trust`); undefined when the mind keeps none (the scope reads 0). */
export function trustForScope(ctx: ServiceContext, key: TrustKey, b: Behaviour | null | undefined): number | undefined {
  return b?.trust ? currentTrust(ctx, key, b.trust).value : undefined;
}

export function getTrust(ctx: ServiceContext, projectId: string, mindId: string, playerId: string): TrustView {
  checkPlayerId(playerId);
  const trust = trustConfigOf(ctx, projectId, mindId);
  const { value, stored } = currentTrust(ctx, { projectId, mindId, playerId }, trust);
  return { entityMindId: mindId, playerId, value, label: trustLabel(trust, value), min: trust.min, max: trust.max, stored };
}

/** Sets a player's trust (the game's own events move it too); a value outside the mind's range is a 400. */
export function setTrust(ctx: ServiceContext, projectId: string, mindId: string, playerId: string, body: unknown): TrustView {
  checkPlayerId(playerId);
  const trust = trustConfigOf(ctx, projectId, mindId);
  const isObject = typeof body === "object" && body !== null && !Array.isArray(body);
  const extra = isObject ? Object.keys(body).filter((k) => k !== "value") : [];
  if (extra.length) throw new ApiError(400, "Unknown field(s)", { fields: extra, details: extra.map((f) => `${f}: unknown field`) });
  const value = isObject ? (body as { value?: unknown }).value : undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < trust.min || value > trust.max) {
    throw new ApiError(400, "Invalid request", { details: [`value: must be an integer from ${trust.min} to ${trust.max}`] });
  }
  writeTx(ctx.db, () => writeTrustValue(ctx.db, { projectId, mindId, playerId }, value, nowIso(ctx)));
  return { entityMindId: mindId, playerId, value, label: trustLabel(trust, value), min: trust.min, max: trust.max, stored: true };
}

/**
 * A player's trust in every mind of the project that keeps trust (the Studio's Players page): one view per mind,
 * the stored value or the mind's initial one. An unknown player is no error: every mind reads its initial trust.
 */
export function listPlayerTrust(ctx: ServiceContext, projectId: string, playerId: string): { playerId: string; trust: TrustView[] } {
  checkPlayerId(playerId);
  const out: TrustView[] = [];
  for (const [mindId, stored] of projectBehaviours(ctx.db, projectId)) {
    const trust = resolveTrust(stored.trust);
    if (!trust) continue;
    const { value, stored: has } = currentTrust(ctx, { projectId, mindId, playerId }, trust);
    out.push({ entityMindId: mindId, playerId, value, label: trustLabel(trust, value), min: trust.min, max: trust.max, stored: has });
  }
  out.sort((a, b) => a.entityMindId.localeCompare(b.entityMindId));
  return { playerId, trust: out };
}
