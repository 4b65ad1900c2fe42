import { nowIso, type ServiceContext } from "../core/context.ts";
import { ApiError, invalidRequest } from "../core/errors.ts";
import { parseJsonColumn } from "../core/json.ts";
import { writeTx } from "../db/openDatabase.ts";
import { isPlainObject, Problems } from "../lore/validate/fields.ts";
import { groupOf, keyProblem, STATE_LIMITS, valueProblem, type StateValue } from "./stateKeys.ts";
import { checkStateSchema, declaredValueProblem, EMPTY_SCHEMA, type StateSchema } from "./stateSchema.ts";
import { countKeys, deleteGroupExcept, deletePlayerState, deleteValue, readSchemaRow, readScope, upsertValue, writeSchemaRow, type ScopeRef } from "./stateStore.ts";

/**
 * The state the game owns (DESIGN.md, world state): values per project (the world) and per project
 * and player, typed and bounded, written by the game's backend with its Server Key (or through the
 * admin API), read by every turn's conditions. Plain services: routes, the CLI and tests call them.
 */

export type StateMap = Record<string, StateValue>;

/** playerId as the interact body allows it (spec: at most 255 characters). */
export const PLAYER_ID_CHARS = 255;

export function readStateSchema(ctx: ServiceContext, projectId: string): StateSchema {
  const r = readSchemaRow(ctx.db, projectId);
  if (!r) return EMPTY_SCHEMA;
  return { stateKeys: parseJsonColumn(r.keys, {}), exclusiveGroups: parseJsonColumn(r.exclusive_groups, []) };
}

/** Checks a schema whole (400 listing every problem) and stores it, replacing the project's. */
export function writeStateSchema(ctx: ServiceContext, projectId: string, input: unknown): StateSchema {
  const p = new Problems();
  const schema = checkStateSchema(input, "", p);
  p.throwIfAny();
  writeTx(ctx.db, () => saveStateSchema(ctx, projectId, schema!));
  return readStateSchema(ctx, projectId);
}

/** Stores a checked schema, the caller holding the write transaction (lore packs write it with the rest of a pack). */
export function saveStateSchema(ctx: ServiceContext, projectId: string, schema: StateSchema): void {
  writeSchemaRow(ctx.db, projectId, JSON.stringify(schema.stateKeys), JSON.stringify(schema.exclusiveGroups), nowIso(ctx));
}

function scopeRef(projectId: string, playerId: string | null): ScopeRef {
  if (playerId !== null && (playerId.length === 0 || playerId.length > PLAYER_ID_CHARS)) {
    throw invalidRequest(`playerId: 1 to ${PLAYER_ID_CHARS} characters`);
  }
  return { projectId, playerId };
}

/** The values set in the world (`playerId` null) or for one player, by key. */
export function readState(ctx: ServiceContext, projectId: string, playerId: string | null): StateMap {
  return Object.fromEntries(readScope(ctx.db, scopeRef(projectId, playerId)));
}

interface StateWrite {
  set: [string, StateValue][];
  unset: string[];
}

/** Every problem of a `{set?, unset?}` body against the project's declarations. */
function checkWrite(body: unknown, schema: StateSchema): StateWrite {
  const p = new Problems();
  const out: StateWrite = { set: [], unset: [] };
  if (!isPlainObject(body)) {
    p.add("body", "must be an object {set?: {key: value}, unset?: [key]}");
    p.throwIfAny();
  }
  const b = body as Record<string, unknown>;
  p.unknownKeys("", b, ["set", "unset"]);
  if (b.set !== undefined) {
    if (!isPlainObject(b.set)) p.add("set", "must be an object of key → value");
    else {
      const entries = Object.entries(b.set);
      if (entries.length > STATE_LIMITS.keysPerScope) p.add("set", `at most ${STATE_LIMITS.keysPerScope} keys`);
      const groups = new Map<string, string>();
      for (const [k, v] of entries) {
        const problem = keyProblem(k) ?? valueProblem(v) ?? declaredValueProblem(schema.stateKeys[k], v as StateValue);
        if (problem) {
          p.add(`set.${k}`, problem);
          continue;
        }
        const g = groupOf(k, schema.exclusiveGroups);
        if (g && groups.has(g)) p.add(`set.${k}`, `'${groups.get(g)}' is set too: one key of exclusive group '${g}' at a time`);
        else if (g) groups.set(g, k);
        out.set.push([k, v as StateValue]);
      }
    }
  }
  if (b.unset !== undefined) {
    if (!Array.isArray(b.unset)) p.add("unset", "must be a list of keys");
    else {
      if (b.unset.length > STATE_LIMITS.keysPerScope) p.add("unset", `at most ${STATE_LIMITS.keysPerScope} keys`);
      const setKeys = new Set(out.set.map(([k]) => k));
      b.unset.forEach((k, i) => {
        const problem = typeof k === "string" ? keyProblem(k) : "must be a key";
        if (problem) p.add(`unset[${i}]`, problem);
        else if (setKeys.has(k)) p.add(`unset[${i}]`, `'${k}' is also in set`);
        else out.unset.push(k);
      });
    }
  }
  p.throwIfAny();
  return out;
}

/**
 * Applies `{set?, unset?}` to the world (`playerId` null) or a player, in one transaction: unset keys
 * go, each set key is written (clearing the other keys of its exclusive group in that scope), and a
 * scope past its key limit is refused whole. Writing the same body again changes nothing.
 */
export function writeState(ctx: ServiceContext, projectId: string, playerId: string | null, body: unknown): StateMap {
  const s = scopeRef(projectId, playerId);
  return writeTx(ctx.db, () => {
    const schema = readStateSchema(ctx, projectId);
    const w = checkWrite(body, schema);
    const at = nowIso(ctx);
    for (const k of w.unset) deleteValue(ctx.db, s, k);
    for (const [k, v] of w.set) {
      const g = groupOf(k, schema.exclusiveGroups);
      if (g) deleteGroupExcept(ctx.db, s, g, k);
      upsertValue(ctx.db, s, k, v, at);
    }
    const n = countKeys(ctx.db, s);
    if (n > STATE_LIMITS.keysPerScope) {
      throw new ApiError(400, "Invalid request", { details: [`set: ${n} keys would be set in this scope; at most ${STATE_LIMITS.keysPerScope}`] });
    }
    return Object.fromEntries(readScope(ctx.db, s));
  });
}

/** A player's state in a project, for the player's data export. */
export function exportPlayerState(ctx: ServiceContext, projectId: string, playerId: string): StateMap {
  return Object.fromEntries(readScope(ctx.db, { projectId, playerId }));
}

/** Erases a player's state (the caller holds the transaction of the player's erasure); returns how many keys went. */
export function erasePlayerState(ctx: ServiceContext, projectId: string, playerId: string): number {
  return deletePlayerState(ctx.db, projectId, playerId);
}
