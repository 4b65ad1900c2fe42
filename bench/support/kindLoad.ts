// The load side of bench/http-cost.ts, its own process: one kind of request at a steady rate (open loop), made as
// bench/support/mixedLoad.ts makes them (a random player and mind from the plan's seed), one JSON result on stdout.
import { readFileSync } from "node:fs";
import type { LoadPlan } from "./mixedLoad.ts";

/** what a mixed load's plan names of the server and world, and the one kind to send */
export interface KindPlan extends Pick<LoadPlan, "base" | "projectId" | "serverKey" | "editorKey" | "adminToken" | "minds" | "players"> {
  kind: "preview" | "event" | "state" | "lore";
  requests: number;
  rate: number;
  /** the same seed sends the same requests */
  seed?: number;
}

export interface KindResult {
  ok: number;
  errors: Record<string, number>;
  p50: number;
  p99: number;
  /** reply bytes in all */
  bytes: number;
}

const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];

function requestOf(plan: KindPlan, rnd: () => number, n: number): [string, RequestInit] {
  const player = `player${Math.floor(rnd() * plan.players)}`;
  const mind = plan.minds[Math.floor(rnd() * plan.minds.length)];
  const line = LINES[Math.floor(rnd() * LINES.length)];
  const json = (key: string, method: string, body: unknown): RequestInit => ({ method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  switch (plan.kind) {
    case "preview":
      return [`${plan.base}/admin/v1/projects/${plan.projectId}/interact-preview`, json(plan.adminToken, "POST", { text: line, entityMindId: mind, playerId: player, memory: { retrieve: true } })];
    case "event":
      return [`${plan.base}/v1/events`, json(plan.serverKey, "POST", { type: "trade", description: `The player sold ${1 + (n % 40)} barrels of salt at the harbour`, playerId: player, witnesses: [mind], importance: 3 })];
    case "state":
      return [`${plan.base}/v1/state/players/${player}`, json(plan.serverKey, "PUT", { set: { gold: n % 1000, "quest.salt": n % 3 === 0 } })];
    case "lore":
      // a page of the project's documents, as a tool or a game's editor reads them
      return [`${plan.base}/v1/lore/documents?limit=20&offset=${Math.floor(rnd() * 2000)}`, { headers: { authorization: `Bearer ${plan.editorKey}` } }];
  }
}

if (import.meta.main) {
  const plan = JSON.parse(readFileSync(process.argv[2], "utf8")) as KindPlan;
  let x = plan.seed ?? 1;
  const rnd = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const ms: number[] = [];
  const errors: Record<string, number> = {};
  let bytes = 0;
  const pending: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < plan.requests; i++) {
    const wait = t0 + (i * 1000) / plan.rate - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const [url, init] = requestOf(plan, rnd, i);
    const start = performance.now();
    pending.push(
      fetch(url, init)
        .then(async (res) => {
          bytes += (await res.arrayBuffer()).byteLength;
          if (res.status >= 200 && res.status < 300) ms.push(performance.now() - start);
          else errors[res.status] = (errors[res.status] ?? 0) + 1;
        })
        .catch(() => void (errors[0] = (errors[0] ?? 0) + 1)),
    );
  }
  await Promise.all(pending);
  ms.sort((a, b) => a - b);
  const pct = (p: number) => (ms.length ? ms[Math.min(ms.length - 1, Math.floor((ms.length - 1) * p))] : NaN);
  console.log(JSON.stringify({ ok: ms.length, errors, p50: pct(0.5), p99: pct(0.99), bytes } satisfies KindResult));
}
