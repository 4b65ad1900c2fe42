import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import type { TestApp } from "../support/testApp.ts";
import { demoApp, demoSuite } from "./helpers.ts";
import { queueRun, runNextQueued, runWithResults, compareRuns } from "../../src/loretests/loreTestService.ts";
import type { SuiteText } from "../../src/loretests/loadSuites.ts";
import { readHeader } from "../../src/llm/kv/snapshotFile.ts";
import { interact } from "../../src/npc/interactService.ts";
import { validateInteract } from "../../src/npc/validateInteract.ts";

// real llama.cpp (a tiny random-weight GGUF) on 2 shared cores
setDefaultTimeout(180_000);

let t: TestApp;
let projectId: string;

beforeAll(async () => {
  ({ t, projectId } = await demoApp());
}, 120_000);
afterAll(() => t?.close());

const suite = (text: string): SuiteText[] => [{ file: "x.test.yaml", text }];
const scratchDirs = () => readdirSync(tmpdir()).filter((d) => d.startsWith("lorehold-loretest-"));

async function run(files: SuiteText[], opts: { runs?: number } = {}) {
  const row = queueRun(t.app.ctx, projectId, files, opts);
  const summary = await runNextQueued(t.app.ctx as never);
  expect(summary).not.toBeNull();
  return { id: row.id, summary: summary!, stored: runWithResults(t.app.ctx, projectId, row.id) };
}

describe("the demo suite on the tiny model", () => {
  test("passes: every knowsFrom is on the trace and no noLeakOf reached a prompt, whatever the weights say", async () => {
    const { summary, stored } = await run([demoSuite()]);
    const failed = summary.cases.filter((c) => !c.passed).map((c) => ({ name: c.name, checks: c.runs.flatMap((r) => [r.error ?? "", ...r.turns.flatMap((x) => x.checks.filter((k) => !k.pass).map((k) => `${k.check}: ${k.detail}`))]) }));
    expect(failed).toEqual([]);
    expect(summary.status).toBe("PASSED");
    expect(stored.run).toMatchObject({ status: "PASSED", progress: { total: 6, done: 6, passed: 6, failed: 0 } });
    expect(stored.run.model).toMatch(/@[0-9a-f]{16}$/);
    expect(stored.run.loreRevision).toMatch(/^[0-9a-f]{16}$/);
    expect(stored.run.promptVersion).toMatch(/^\d+\.\d+\.\d+\+[0-9a-f]{12}$/);
    // every turn's reply and trace is kept: the crypt case's trace holds the crypt, the closed one's does not
    const byName = new Map(stored.cases.map((c) => [c.name, c]));
    const open = byName.get("Once the river wall is rebuilt, the crypt is open to him")!.runs[0].turns[0];
    expect(open.trace.lore.some((l) => l.documentName === "The Sealed Crypt")).toBe(true);
    expect(typeof open.reply).toBe("string");
    const closed = byName.get("Brother Aldous is not given the sealed crypt before the flood quest is done")!.runs[0].turns[0];
    expect(closed.trace.lore.some((l) => l.documentName === "The Sealed Crypt")).toBe(false);
    expect(closed.checks).toEqual([expect.objectContaining({ check: "noLeakOf sealed-crypt", pass: true })]);
  });
});

describe("expectations that must fail do fail", () => {
  test("knowsFrom of lore the mind cannot see, noLeakOf of lore it was given, mentions the noise never says", async () => {
    const { summary } = await run(
      suite(`
tests:
  - name: Garrick asked about the tunnel
    mind: garrick
    turns:
      - say: What is the Rusty Tankard like, and who brews the Wend Water porter?
        expect:
          knowsFrom: [smugglers-tunnel]
          noLeakOf: [rusty-tankard]
          mentionsAll: [zzyzx-never-a-word]
          maxSentences: 100
`),
    );
    const checks = summary.cases[0].runs[0].turns[0].checks;
    expect(summary.status).toBe("FAILED");
    expect(checks.find((c) => c.check === "knowsFrom smugglers-tunnel")).toMatchObject({ pass: false, detail: 'no chunk of "The Cellar Run" reached the prompt' });
    expect(checks.find((c) => c.check === "noLeakOf rusty-tankard")).toMatchObject({ pass: false });
    expect(checks.find((c) => c.check === "noLeakOf rusty-tankard")!.detail).toContain('of "The Rusty Tankard" reached the prompt');
    expect(checks.find((c) => c.check === "mentionsAll")).toMatchObject({ pass: false });
    expect(checks.find((c) => c.check === "maxSentences")).toMatchObject({ pass: true });
  });

  test("runs and passRate: a case whose runs all fail has rate 0 and fails; --runs overrides the case's runs", async () => {
    const { summary } = await run(
      suite(`
tests:
  - name: never passes
    mind: garrick
    runs: 2
    passRate: 0.5
    turns:
      - say: Hello there.
        expect: { knowsFrom: [reliquary-secret] }
`),
      { runs: 3 },
    );
    expect(summary.cases[0].runs.length).toBe(3);
    expect(summary.cases[0]).toMatchObject({ passed: false, passRate: 0, requiredRate: 0.5 });
    // each run is a fresh player: three distinct conversations
    expect(new Set(summary.cases[0].runs.map((r) => r.turns[0].trace.memories.length)).size).toBe(1);
  });
});

describe("comparing two stored runs", () => {
  test("the case whose verdict changed is listed with both replies and traces; unchanged ones are counted", async () => {
    const base = (knows: string) => `
tests:
  - name: the inn
    mind: garrick
    turns:
      - say: What is the Rusty Tankard like, and who brews the Wend Water porter?
        expect: { knowsFrom: [${knows}] }
  - name: steady
    mind: garrick
    turns:
      - say: Good evening.
`;
    const a = await run(suite(base("rusty-tankard")));
    const b = await run(suite(base("smugglers-tunnel")));
    const d = compareRuns(t.app.ctx, projectId, a.id, b.id);
    expect(d.unchanged).toBe(1);
    expect(d.changed.length).toBe(1);
    const c = d.changed[0];
    expect(c).toMatchObject({ name: "the inn", direction: "broke", a: { passed: true }, b: { passed: false } });
    expect(c.a.runs[0].turns[0].trace.lore.some((l) => l.documentName === "The Rusty Tankard")).toBe(true);
    expect(typeof c.b.runs[0].turns[0].reply).toBe("string");
    expect(compareRuns(t.app.ctx, projectId, b.id, a.id).changed[0].direction).toBe("fixed");
  });
});

describe("scratch isolation", () => {
  /** Every KV snapshot on disk: its kind, its key and a hash of its state file. */
  const kvFiles = () => {
    const root = `${t.app.config.dataDir}/kv`;
    if (!existsSync(root)) return [];
    return (readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith(".meta"))
      .map((f) => {
        const h = readHeader(`${root}/${f}`)!;
        const state = `${root}/${f.replace(/\.meta$/, ".state")}`;
        return { kind: h.kind, key: h.key, state: createHash("sha256").update(readFileSync(state)).digest("hex") };
      })
      .sort((a, b) => a.key.localeCompare(b.key));
  };

  test("a run changes nothing of the project: sessions, memories, trust, credits, state, conversation KV snapshots; the copy is deleted", async () => {
    const db = t.app.db;
    // A real player's turn first: the project has a session, a ledger entry and a conversation snapshot to keep.
    const mind = (db.query("SELECT id FROM entity_minds WHERE project_id = ? AND key = 'brother-aldous'").get(projectId) as { id: string }).id;
    await interact(t.app.ctx as never, { keyId: "k", projectId, type: "server" }, validateInteract({ text: "Good evening, Brother.", entityMindId: mind, playerId: "real-player" }));
    await t.app.ctx.llm!.kvIdle();
    const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
    const snapshot = () => ({
      sessions: db.query("SELECT player_id, messages FROM sessions ORDER BY player_id").all(),
      memories: count("SELECT COUNT(*) AS n FROM memories"),
      trust: count("SELECT COUNT(*) AS n FROM player_trust"),
      ledger: db.query("SELECT * FROM credit_ledger ORDER BY rowid").all(),
      reservations: count("SELECT COUNT(*) AS n FROM credit_reservations"),
      state: count("SELECT COUNT(*) AS n FROM world_state") + count("SELECT COUNT(*) AS n FROM player_state"),
      pending: count("SELECT COUNT(*) AS n FROM pending_summaries"),
      rateLimits: db.query("SELECT * FROM rate_limits").all(),
      conversations: kvFiles().filter((f) => f.kind === "conversation"),
    });
    const before = snapshot();
    expect(before.sessions.length).toBe(1);
    expect(before.ledger.length).toBeGreaterThan(0);
    expect(before.conversations.length).toBe(1);
    const dirsBefore = scratchDirs();
    const { summary } = await run(
      suite(`
tests:
  - name: seeds everything a case can seed
    mind: brother-aldous
    state: { world: { quest.flood.stage: 2 }, player: { quest.flood.stage: 2 } }
    memories: [The stranger carried stone for the river wall.]
    history:
      - { role: player, text: "Good evening, Brother." }
      - { role: npc, text: Peace be with you. }
    turns:
      - say: What lies in the crypt below the abbey church?
      - say: And who reset the stone beneath the flood mark?
`),
      { runs: 2 },
    );
    const failures = summary.cases[0].runs.flatMap((r) => [r.error ?? [], ...r.turns.flatMap((x) => x.checks.filter((k) => !k.pass).map((k) => `${k.check}: ${k.detail}; reply ${JSON.stringify(x.reply)}`))].flat());
    expect(failures).toEqual([]);
    expect(summary.status).toBe("PASSED");
    // the seeded memory reached the prompt in the copy
    expect(summary.cases[0].runs[0].turns[0].trace.memories).toContain("The stranger carried stone for the river wall.");
    await t.app.ctx.llm!.kvIdle();
    expect(snapshot()).toEqual(before);
    // What a run may leave in the engine's store is a mind's prefix (its static prompt, the same for every player).
    expect(kvFiles().filter((f) => f.kind !== "prefix" && !before.conversations.some((c) => c.key === f.key))).toEqual([]);
    expect(scratchDirs()).toEqual(dirsBefore);
  });
});
