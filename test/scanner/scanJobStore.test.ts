import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/openDatabase.ts";
import { SCAN_STATUSES } from "../../src/scanner/limits.ts";
import { ALLOWED_TRANSITIONS, IllegalScanTransition, LIVE_STATUSES, getScanJob, insertScanJob, transition } from "../../src/scanner/scanJobStore.ts";
import { createProject } from "../../src/projects/projectService.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { tempDir } from "../support/testApp.ts";

function fixture() {
  const dir = tempDir();
  const db = openDatabase(join(dir, "t.db"));
  const ctx = { db, clock: new ManualClock(new Date("2026-01-01T00:00:00Z")) };
  const projectId = createProject(ctx, { name: "P" }).id;
  const job = insertScanJob(db, {
    id: "scan_1", project_id: projectId, idempotency_key: null, manifest: "[]", total_size_bytes: 1, user_context: null,
    total_files: 0, estimated_micro: 0, reserved_micro: 0, upload_expires_at: "2026-01-01T01:00:00Z", created_at: "2026-01-01T00:00:00Z",
  });
  return { db, job, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

describe("scan job transitions", () => {
  test("the table names every status, and only COMPLETED and FAILED are final", () => {
    expect(Object.keys(ALLOWED_TRANSITIONS).sort()).toEqual([...SCAN_STATUSES].sort());
    expect(SCAN_STATUSES.filter((s) => ALLOWED_TRANSITIONS[s].length === 0).sort()).toEqual(["COMPLETED", "FAILED"]);
    expect(LIVE_STATUSES).toEqual(["PENDING_UPLOAD", "QUEUED", "PROCESSING"]);
  });

  test("a move the table does not allow throws before touching the row", () => {
    const f = fixture();
    try {
      expect(() => transition(f.db, f.job.id, { from: "PENDING_UPLOAD", to: "COMPLETED" })).toThrow(IllegalScanTransition);
      expect(() => transition(f.db, f.job.id, { from: "FAILED", to: "QUEUED" })).toThrow("scan job FAILED → QUEUED is not allowed");
      expect(getScanJob(f.db, f.job.id)!.status).toBe("PENDING_UPLOAD");
    } finally {
      f.close();
    }
  });

  test("a job not in `from` is left alone (null); attempts and columns move with the status", () => {
    const f = fixture();
    try {
      expect(transition(f.db, f.job.id, { from: "QUEUED", to: "PROCESSING" })).toBeNull();
      const q = transition(f.db, f.job.id, { from: "PENDING_UPLOAD", to: "QUEUED", set: { confirmed_at: "2026-01-01T00:01:00Z" } })!;
      expect([q.status, q.confirmed_at, q.attempts]).toEqual(["QUEUED", "2026-01-01T00:01:00Z", 0]);
      const p = transition(f.db, f.job.id, { from: "QUEUED", to: "PROCESSING", attemptsDelta: 1 })!;
      expect([p.status, p.attempts]).toEqual(["PROCESSING", 1]);
      // another attempt's claim does not match
      expect(transition(f.db, f.job.id, { from: "PROCESSING", to: "COMPLETED", attempt: 2 })).toBeNull();
      expect(transition(f.db, f.job.id, { from: "PROCESSING", to: "COMPLETED", attempt: 1 })!.status).toBe("COMPLETED");
    } finally {
      f.close();
    }
  });
});
