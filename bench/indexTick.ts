/**
 * What one trigger of the `indexer` job leaves of the tuning worlds, as bench/steer.ts loaded them before it indexed
 * everything (bench/support/indexAll.ts): the worlds imported into one app (MiniLM, `--threads`), the job triggered
 * once, then the tick's time, the documents still pending per world, and the grounding questions whose answer's
 * document is among them. A tick ends after INDEXER_TICK_MS between batches of 32 documents, so past the first batch
 * what is left depends on the machine's load: `--first-batch` indexes the first batch alone (runIndexer, at most 32
 * documents) and reports its time and what a tick leaves when that time passes INDEXER_TICK_MS. Then, per world, the
 * grounding questions whose answer's document is among the four notes retrieved for them (recall@4, as bench/quality.ts
 * counts it), on what that tick left and once everything is indexed (bench/support/indexAll.ts).
 *
 *   bun bench/indexTick.ts [--reedmouth] [--threads 1] [--runs 3] [--first-batch]
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { createTestApp } from "../test/support/testApp.ts";
import { arg, fixturesOrExit } from "./support/benchArgs.ts";
import { TUNING } from "./support/qualityQuestions.ts";
import { loadWorld } from "./support/qualityWorldRun.ts";
import { REEDMOUTH } from "./worlds/reedmouth.questions.ts";
import { INDEXER_TICK_MS, runIndexer } from "../src/lore/indexer/indexerJob.ts";
import { retrieveLore } from "../src/retrieval/hybridSearch.ts";
import { knowledgeTagNames } from "../src/lore/minds/mindStore.ts";
import { indexAll } from "./support/indexAll.ts";

const fx = fixturesOrExit("indexTick");
const threads = Number(arg("threads", "1"));
const runs = Number(arg("runs", "1"));
const worlds = process.argv.includes("--reedmouth") ? [TUNING, REEDMOUTH] : [TUNING];
const firstBatch = process.argv.includes("--first-batch");

for (let run = 1; run <= runs; run++) {
  const t = await createTestApp({ modelsDir: fx.modelsDir, embeddingModel: fx.minilm, threads }, { loadModel: false });
  const loaded = worlds.map((w) => loadWorld(t, w, join(import.meta.dir, "..")));
  const load = loadavg()[0];
  const t0 = performance.now();
  const r = firstBatch ? await runIndexer(t.app.ctx as any, undefined, 32) : ((await t.app.scheduler.trigger("indexer"))?.lastResult as { indexed: number } | null);
  const ms = performance.now() - t0;
  const pending = new Set(
    t.app.ctx.db.query<{ project_id: string; key: string }, []>("SELECT project_id, key FROM documents WHERE status <> 'COMPLETED'").all().map((d) => `${d.project_id}/${d.key}`),
  );
  const parts: string[] = [];
  for (const w of loaded) {
    const projects = Object.keys(w.key);
    const left = [...pending].filter((p) => projects.includes(p.split("/")[0])).map((p) => p.split("/")[1]);
    const unanswerable = w.world.grounding.filter((q) => q.doc && projects.some((p) => pending.has(`${p}/${q.doc}`)));
    parts.push(`${w.world.name}: ${left.length} documents pending (${left.join(", ") || "none"}), ${unanswerable.length}/${w.world.grounding.length} grounding questions without their document`);
  }
  const recall = async () => {
    const out: string[] = [];
    for (const w of loaded) {
      const ids = new Map<string, string>();
      for (const p of Object.keys(w.key))
        for (const d of t.app.ctx.db.query<{ id: string; key: string }, [string]>("SELECT id, key FROM documents WHERE project_id = ?").all(p)) ids.set(`${p}/${d.key}`, d.id);
      let hit = 0;
      for (const q of w.world.grounding) {
        const m = w.minds[q.mind];
        const hits = await retrieveLore(t.app.ctx, { projectId: m.projectId, query: q.text, tags: knowledgeTagNames(t.app.ctx.db, m.id), k: 4 });
        if (hits.some((h) => h.documentId === ids.get(`${m.projectId}/${q.doc}`))) hit++;
      }
      out.push(`${w.world.name} ${hit}/${w.world.grounding.length}`);
    }
    return out.join(", ");
  };
  const partial = await recall();
  await indexAll(t.app);
  parts.push(`recall@4 on what the tick left: ${partial}; everything indexed: ${await recall()}`);
  console.log(`run ${run}: ${firstBatch ? `the first batch (a tick's whole work once it passes ${INDEXER_TICK_MS / 1000} s)` : "one tick"} ${(ms / 1000).toFixed(1)} s, ${r?.indexed ?? 0} indexed, load ${load.toFixed(1)} → ${loadavg()[0].toFixed(1)}; ${parts.join("; ")}`);
  await t.close();
}
console.log(`MiniLM, ${threads} thread(s), ${cpus()[0]?.model}`);
