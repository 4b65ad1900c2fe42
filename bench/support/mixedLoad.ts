// The load side of bench/scale.ts, run as its own process so the client's work is not the server's event loop:
// reads a plan (JSON file, argv[2]), drives it over HTTP and prints one JSON result on stdout.
//
// Each step holds every non-generation kind at the same open-loop rate (requests are sent on schedule, not
// when the previous one answered, so a slow server shows as latency, not as a quietly lower rate) for
// `stepSeconds`, while `turnWorkers` players hold interact turns going back to back (closed loop: generation is
// the remote llama-server's, and the turns are there to load the control plane as a live game would).
import { readFileSync } from "node:fs";

export interface LoadPlan {
  base: string;
  projectId: string;
  serverKey: string;
  editorKey: string;
  adminToken: string;
  minds: string[];
  documents: string[];
  tags: string[];
  /** players that have memories: previews and turns retrieve them */
  players: number;
  rates: number[];
  stepSeconds: number;
  turnWorkers: number;
  /** requests of one kind in flight at most; past it a request is counted as shed, not sent */
  maxInFlight: number;
  /** each kind alone first (no turns), at this rate for this long: the server's CPU per request (bench/scale.ts reads it) */
  soloRate: number;
  soloSeconds: number;
  /**
   * after each kind alone, this long with nothing sent before the next: what the server does after its replies
   * (LanceDB's compaction after appends, jobs a write wakes) is counted with the kind that caused it, not the next
   */
  settleSeconds: number;
}

/** A preview's or a turn's mind and player, and whether it was the first request for that mind since the load began. */
export interface Asked {
  mind: string;
  player: string;
  firstOfMind: boolean;
}

/** One kind alone: its wall-clock window (Date.now()), so the server can attribute its own CPU time to it. */
export interface SoloResult {
  kind: Kind | "turn" | "idle";
  from: number;
  to: number;
  /** when the last reply arrived (`to` is after the settle) */
  repliedAt: number;
  ok: number;
  failed: number;
  /** the failures by status (0: no answer) */
  errors: Record<string, number>;
  p50: number;
  /** previews and turns: what they asked (bench/scale.ts reports first sight, pairs with memories) */
  asked: Asked[];
}

export type Kind = "preview" | "lore" | "event" | "state";
export const KINDS: Kind[] = ["preview", "lore", "event", "state"];

export interface KindStep {
  sent: number;
  ok: number;
  errors: Record<string, number>;
  shed: number;
  p50: number;
  p99: number;
}

export interface StepResult {
  rate: number;
  seconds: number;
  kinds: Record<Kind, KindStep>;
  turns: { ok: number; errors: number; p50: number; p99: number };
  asked: { preview: Asked[]; turn: Asked[] };
}

const pct = (xs: number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length - 1) * p))] : NaN);

let seed = 0x9e3779b9;
const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
const LINES = ["Tell me about the harbour and the lantern.", "Who guards the north gate at night?", "What do you know of the salt debt?", "Have you seen the ferryman?", "What happened at the mill?"];

/** minds a preview or a turn has asked about since the load began (the warm-up included) */
const seenMinds = new Set<string>();

function request(plan: LoadPlan, kind: Kind | "turn", n: number, asked?: Asked[]): [string, RequestInit] {
  const player = `player${Math.floor(rnd() * plan.players)}`;
  const mind = pick(plan.minds);
  if (kind === "preview" || kind === "turn") {
    asked?.push({ mind, player, firstOfMind: !seenMinds.has(mind) });
    seenMinds.add(mind);
  }
  const json = (key: string, method: string, body: unknown): RequestInit => ({ method, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  switch (kind) {
    case "turn":
      return [`${plan.base}/v1/npc/interact`, json(plan.serverKey, "POST", { text: pick(LINES), entityMindId: mind, playerId: player, memory: { retrieve: true } })];
    case "preview":
      return [`${plan.base}/admin/v1/projects/${plan.projectId}/interact-preview`, json(plan.adminToken, "POST", { text: pick(LINES), entityMindId: mind, playerId: player, memory: { retrieve: true } })];
    case "lore": {
      // one document by id, or a page of a tag's documents: what a tool or a game's editor reads
      const get = { headers: { authorization: `Bearer ${plan.editorKey}` } };
      if (n % 2 === 0) return [`${plan.base}/v1/lore/documents/${pick(plan.documents)}`, get];
      return [`${plan.base}/v1/lore/documents?tag=${encodeURIComponent(pick(plan.tags))}&limit=20&offset=${Math.floor(rnd() * 200)}`, get];
    }
    case "event":
      // an event about a player that one mind witnessed: a memory written for that player and mind
      return [`${plan.base}/v1/events`, json(plan.serverKey, "POST", { type: "trade", description: `The player sold ${1 + (n % 40)} barrels of salt at the harbour`, playerId: player, witnesses: [mind], importance: 3 })];
    case "state":
      return [`${plan.base}/v1/state/players/${player}`, json(plan.serverKey, "PUT", { set: { gold: n % 1000, "quest.salt": n % 3 === 0 } })];
  }
}

async function timed(url: string, init: RequestInit): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, init);
    await res.arrayBuffer();
    return { ms: performance.now() - t0, status: res.status };
  } catch {
    return { ms: performance.now() - t0, status: 0 };
  }
}

async function solo(plan: LoadPlan, kind: Kind | "turn" | "idle"): Promise<SoloResult> {
  const from = Date.now();
  if (kind === "idle") {
    // nothing sent: the server's background CPU (jobs, LanceDB's threads, GC), subtracted from the others
    await Bun.sleep(plan.soloSeconds * 1000);
    return { kind, from, to: Date.now(), repliedAt: Date.now(), ok: 0, failed: 0, errors: {}, p50: NaN, asked: [] };
  }
  const asked: Asked[] = [];
  const ms: number[] = [];
  const errors: Record<string, number> = {};
  let failed = 0;
  const fail = (status: number) => {
    failed++;
    errors[status] = (errors[status] ?? 0) + 1;
  };
  const end = performance.now() + plan.soloSeconds * 1000;
  if (kind === "turn") {
    // turns one after another: their CPU per turn on the server, generation being the llama-server's
    for (let n = 0; performance.now() < end; n++) {
      const r = await timed(...request(plan, "turn", n, asked));
      if (r.status === 200) ms.push(r.ms);
      else fail(r.status);
    }
  } else {
    const pending: Promise<void>[] = [];
    const t0 = performance.now();
    for (let i = 0; ; i++) {
      const at = t0 + (i * 1000) / plan.soloRate;
      if (at >= end) break;
      const wait = at - performance.now();
      if (wait > 0) await Bun.sleep(wait);
      pending.push(timed(...request(plan, kind, i, asked)).then((r) => void (r.status >= 200 && r.status < 300 ? ms.push(r.ms) : fail(r.status))));
    }
    await Promise.all(pending);
  }
  const repliedAt = Date.now();
  await Bun.sleep(plan.settleSeconds * 1000);
  return { kind, from, to: Date.now(), repliedAt, ok: ms.length, failed, errors, p50: pct(ms, 0.5), asked };
}

async function step(plan: LoadPlan, rate: number): Promise<StepResult> {
  const end = performance.now() + plan.stepSeconds * 1000;
  const turnMs: number[] = [];
  let turnErrors = 0;
  const asked = { preview: [] as Asked[], turn: [] as Asked[] };
  const workers = Array.from({ length: plan.turnWorkers }, async () => {
    let n = 0;
    while (performance.now() < end) {
      const r = await timed(...request(plan, "turn", n++, asked.turn));
      if (r.status === 200) turnMs.push(r.ms);
      else turnErrors++;
    }
  });
  const kinds = await Promise.all(
    KINDS.map(async (kind): Promise<[Kind, KindStep]> => {
      const ms: number[] = [];
      const errors: Record<string, number> = {};
      const pending = new Set<Promise<void>>();
      let sent = 0;
      let shed = 0;
      const t0 = performance.now();
      // kinds start spread over one interval so they do not all arrive in the same millisecond
      const offset = (KINDS.indexOf(kind) / KINDS.length) * (1000 / rate);
      for (let i = 0; ; i++) {
        const at = t0 + offset + (i * 1000) / rate;
        if (at >= end) break;
        const wait = at - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        if (pending.size >= plan.maxInFlight) {
          shed++;
          continue;
        }
        sent++;
        const p = timed(...request(plan, kind, i, kind === "preview" ? asked.preview : undefined)).then((r) => {
          if (r.status >= 200 && r.status < 300) ms.push(r.ms);
          else errors[r.status] = (errors[r.status] ?? 0) + 1;
          pending.delete(p);
        });
        pending.add(p);
      }
      await Promise.all(pending);
      return [kind, { sent, ok: ms.length, errors, shed, p50: pct(ms, 0.5), p99: pct(ms, 0.99) }];
    }),
  );
  await Promise.all(workers);
  return { rate, seconds: plan.stepSeconds, kinds: Object.fromEntries(kinds) as Record<Kind, KindStep>, turns: { ok: turnMs.length, errors: turnErrors, p50: pct(turnMs, 0.5), p99: pct(turnMs, 0.99) }, asked };
}

if (import.meta.main) {
  const plan = JSON.parse(readFileSync(process.argv[2], "utf8")) as LoadPlan;
  // warm-up: the JIT, the connections, the first reads of the files (not reported)
  await step({ ...plan, stepSeconds: 5, turnWorkers: 1 }, Math.min(5, plan.rates[0]));
  const solos: SoloResult[] = [];
  for (const kind of ["idle" as const, ...KINDS, "turn" as const]) {
    solos.push(await solo(plan, kind));
    console.error(`alone: ${kind} ${solos.at(-1)!.ok} ok, p50 ${solos.at(-1)!.p50.toFixed(1)} ms`);
  }
  const steps: StepResult[] = [];
  for (const rate of plan.rates) {
    const r = await step(plan, rate);
    steps.push(r);
    console.error(`rate ${rate}/s: ${KINDS.map((k) => `${k} p99 ${r.kinds[k].p99.toFixed(1)} ms (${r.kinds[k].ok}/${r.kinds[k].sent}, shed ${r.kinds[k].shed})`).join(", ")}; turns ${r.turns.ok} ok / ${r.turns.errors} err`);
    // two kinds' median past 5× the bound, or shedding: the next step would only measure a queue
    if (KINDS.filter((k) => !(r.kinds[k].p50 <= 100) || r.kinds[k].shed > 0).length >= 2) break;
  }
  console.log(JSON.stringify({ solos, steps }));
}
