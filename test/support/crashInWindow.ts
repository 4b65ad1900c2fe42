// A server that records events about players and dies inside their append window (process.exit: no stop, no
// flush), for test/events/eventVectorAppends.test.ts. Usage: bun test/support/crashInWindow.ts <dir>
import { App } from "../../src/app/App.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { silentLogger } from "../../src/ops/logger.ts";
import { testConfig } from "./testApp.ts";
import { buildWorld } from "./world.ts";

const dir = process.argv[2];
const app = await App.create(testConfig(dir, { embeddingModel: "hashing", memoryAppendWindowMs: 3_600_000 }), { clock: new ManualClock(new Date()), logger: silentLogger, loadModel: false });
const w = buildWorld(app.ctx as never, "Thornhaven");
const post = async (playerId: string, mind: string, description: string) => {
  const res = await app.handle(
    new Request("http://local/v1/events", {
      method: "POST",
      headers: { authorization: `Bearer ${w.keys.server}`, "content-type": "application/json" },
      body: JSON.stringify({ type: "trade", description, playerId, witnesses: [mind] }),
    }),
  );
  if (res.status !== 201) throw new Error(`event: ${res.status} ${await res.text()}`);
};
// committed, then marked queued again: a crash between a commit and its bookkeeping
await post("committed", w.minds.garrick, "The player waved from the quay");
await app.ctx.vectors.appends.flush();
const [committed] = app.db.query("SELECT id FROM memories WHERE player_id = 'committed'").all() as { id: string }[];
app.db.query("INSERT INTO memory_vector_queue (memory_id) VALUES (?)").run(committed.id);
// queued, never committed
await post("crashed", w.minds.garrick, "The player took the ferry crossing at dawn");
await post("crashed", w.minds.elena, "The player paid the ferry toll in salt");
await post("crashed-erased", w.minds.garrick, "The player slept in the barn");
await post("crashed-erased", w.minds.elena, "The player sang at the inn");
console.log(JSON.stringify({ projectId: w.projectId }));
process.exit(0);
