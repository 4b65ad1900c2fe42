import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import { createHash } from "node:crypto";
import type { InteractDeps, ServiceContext } from "../core/context.ts";
import { loadSnapshot } from "../packs/projectSnapshot.ts";
import pkg from "../../package.json" with { type: "json" };

/**
 * What a run's results depend on besides the suite, stored with the run so a comparison says what changed:
 * the model (its file name and a hash of its header and size; a remote pool by its backends' models), the
 * lore (a hash of the project's minds and documents), the prompt (Lorehold's version and a hash of the
 * system messages the run's turns were given).
 */
export function modelIdentity(deps: Pick<InteractDeps, "modelStatus" | "generation">): string {
  const gen = deps.generation;
  if (gen && gen.mode === "remote") return `remote:${gen.status().map((b) => `${b.name}=${b.model}`).join(",")}`;
  const path = deps.modelStatus.path;
  if (!path) return "none";
  const hash = createHash("sha256");
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(1 << 20, size));
    readSync(fd, head, 0, head.length, 0);
    hash.update(`${size}|`).update(head);
  } finally {
    closeSync(fd);
  }
  return `${basename(path)}@${hash.digest("hex").slice(0, 16)}`;
}

export function loreRevision(ctx: ServiceContext, projectId: string): string {
  const snap = loadSnapshot(ctx, projectId);
  const hash = createHash("sha256");
  const docs = [...snap.documents.byKey.values()].sort((a, b) => a.id.localeCompare(b.id));
  for (const d of docs) hash.update(JSON.stringify([d.id, d.name, d.content, [...d.tagIds].sort(), d.when ?? null, d.secret ?? false]));
  const minds = [...snap.minds.byKey.values()].sort((a, b) => a.id.localeCompare(b.id));
  for (const m of minds) hash.update(JSON.stringify(m));
  hash.update(JSON.stringify(snap.stateSchema));
  return hash.digest("hex").slice(0, 16);
}

export function promptVersion(systems: string[]): string {
  const hash = createHash("sha256");
  for (const s of [...new Set(systems)].sort()) hash.update(s).update("\0");
  return `${pkg.version}+${hash.digest("hex").slice(0, 12)}`;
}
