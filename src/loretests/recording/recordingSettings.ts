import { randomBytes } from "node:crypto";
import { nowIso, type ServiceContext } from "../../core/context.ts";
import { invalidRequest } from "../../core/errors.ts";
import { writeTx } from "../../db/openDatabase.ts";
import { recordingRow, upsertRecording } from "./candidateStore.ts";

/** A project's consent to record real conversations as candidate lore tests: off until a writer turns it on. */
export interface RecordingSettings {
  recordConversations: boolean;
  /** the share of sessions recorded, 0–1 */
  recordSampleRate: number;
}

export const RECORDING_KEYS = ["recordConversations", "recordSampleRate"] as const;
const OFF: RecordingSettings = { recordConversations: false, recordSampleRate: 0 };

export function readRecording(ctx: ServiceContext, projectId: string): RecordingSettings {
  const r = recordingRow(ctx.db, projectId);
  return r ? { recordConversations: r.enabled, recordSampleRate: r.sampleRate } : { ...OFF };
}

/** Every problem of a patch (unknown keys included); empty when it is valid. */
export function recordingProblems(patch: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === "recordConversations") {
      if (typeof v !== "boolean") problems.push("recordConversations: must be true or false");
    } else if (k === "recordSampleRate") {
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) problems.push("recordSampleRate: must be a number from 0 to 1");
    } else problems.push(`${k}: unknown setting (known: ${RECORDING_KEYS.join(", ")})`);
  }
  return problems;
}

/** Changes the setting (400 `Invalid request` with every problem, nothing written); returns it as it now stands. */
export function setRecording(ctx: ServiceContext, projectId: string, patch: Record<string, unknown>): RecordingSettings {
  const problems = recordingProblems(patch);
  if (problems.length) throw invalidRequest(...problems);
  return writeTx(ctx.db, () => {
    const row = recordingRow(ctx.db, projectId);
    const next = { ...readRecording(ctx, projectId), ...(patch as Partial<RecordingSettings>) };
    upsertRecording(ctx.db, projectId, {
      enabled: next.recordConversations,
      sampleRate: next.recordSampleRate,
      salt: row?.salt ?? randomBytes(32).toString("hex"),
      at: nowIso(ctx),
    });
    return next;
  });
}
