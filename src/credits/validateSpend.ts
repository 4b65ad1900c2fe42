import { invalidRequest, notFound } from "../core/errors.ts";
import type { Db } from "../db/openDatabase.ts";
import { isMicro, SYSTEM_KINDS } from "./ledgerRows.ts";
import { teamOfProject } from "../projects/projectStore.ts";

/**
 * Checks the common input of reserve and charge. A spend's `kind` (a
 * reservation's `purpose`) becomes the ledger row's kind, so it may not be
 * one of the ledger's own kinds (that would hide it from spentMicro).
 */
export function validateSpend(field: "purpose" | "kind", kind: unknown, amount: unknown): void {
  const details: string[] = [];
  if (!isMicro(amount)) details.push("amount: must be a non-negative integer number of microcredits");
  if (typeof kind !== "string" || !kind.trim()) details.push(`${field}: must be a non-empty string`);
  else if (SYSTEM_KINDS.includes(kind)) details.push(`${field}: '${kind}' is reserved by the ledger`);
  if (details.length) throw invalidRequest(...details);
}

/** A spend attributed to a project must name a project of the same team. */
export function checkProjectOfTeam(db: Db, teamId: string, projectId: string | undefined): void {
  if (projectId === undefined) return;
  const owner = teamOfProject(db, projectId);
  if (!owner) throw notFound("Project");
  if (owner !== teamId) throw invalidRequest(`projectId: project ${projectId} does not belong to team ${teamId}`);
}
