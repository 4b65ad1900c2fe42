import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { GenerateResult, LlmEngineStats } from "../llm/types.ts";
import type { ReplyGuardReport } from "../npc/replies/generateReply.ts";
import { registerKvMetrics } from "../llm/kv/kvMetrics.ts";
import type { BackendStatus } from "../generation/types.ts";
import { backendGauges } from "../generation/backendMetrics.ts";

/**
 * Prometheus metrics of one server (a registry per App, so tests and
 * several apps in one process never share counters). Gauges that mirror
 * state elsewhere (queue depth, scan jobs, credits) are read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<"method" | "route" | "status">;
  private readonly interactSeconds: Histogram<"status">;
  private readonly tokens: Counter;
  private readonly promptTokens: Counter;
  private readonly promptTokensTotal: Counter;
  private readonly replyProblems: Counter<"kind" | "outcome">;
  private readonly replyAttempts: Counter<"attempts">;
  private readonly replyStops: Counter<"why">;
  private readonly replySteered: Counter;

  constructor(sources: {
    llmStats: () => LlmEngineStats | null;
    scanJobsByState: () => Record<string, number>;
    creditsSpentMicro: () => number;
    /** per generation backend (local engine or remote pool) */
    backends?: () => BackendStatus[];
  }) {
    const registers = [this.registry];
    this.requests = new Counter({ name: "lorehold_http_requests_total", help: "HTTP requests by route and status", labelNames: ["method", "route", "status"], registers });
    this.interactSeconds = new Histogram({
      name: "lorehold_interact_duration_seconds",
      help: "POST /v1/npc/interact latency",
      labelNames: ["status"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64],
      registers,
    });
    this.tokens = new Counter({ name: "lorehold_tokens_generated_total", help: "Completion tokens generated", registers });
    this.promptTokens = new Counter({ name: "lorehold_prompt_tokens_evaluated_total", help: "Prompt tokens evaluated (after KV-cache reuse)", registers });
    this.promptTokensTotal = new Counter({ name: "lorehold_prompt_tokens_total", help: "Prompt tokens of every generation (before KV-cache reuse)", registers });
    this.replyProblems = new Counter({
      name: "lorehold_reply_problems_total",
      help: "Problems the reply guard found in NPC replies, by kind (echo, meta, roleLabel, promptEcho, exampleCopy, wrongPerson, repetition, repeatsPrevious, empty) and outcome (resampled: another sample was drawn; returned: the reply went out with it)",
      labelNames: ["kind", "outcome"],
      registers,
    });
    this.replyAttempts = new Counter({ name: "lorehold_reply_attempts_total", help: "NPC replies by how many samples the reply guard drew (1 to 3; 4 with a secret's extra sample)", labelNames: ["attempts"], registers });
    this.replySteered = new Counter({
      name: "lorehold_reply_steered_total",
      help: "Samples the reply guard drew steered away from what the samples before them did wrong (the player's line after an echo, an assistant's words after its voice, the prompt's after a recital)",
      registers,
    });
    this.replyStops = new Counter({
      name: "lorehold_reply_stops_total",
      help: "NPC replies the server ended early, by why: its sentence limit, a loop, the token cap nearing, a secret, a tail written into the words, an assistant's offer of help",
      labelNames: ["why"],
      registers,
    });
    new Gauge({
      name: "lorehold_llm_queue_depth",
      help: "Requests waiting for a free sequence",
      registers,
      collect() {
        this.set(sources.llmStats()?.queueDepth ?? 0);
      },
    });
    new Gauge({
      name: "lorehold_llm_active_sequences",
      help: "Sequences generating now",
      registers,
      collect() {
        this.set(sources.llmStats()?.activeSequences ?? 0);
      },
    });
    new Gauge({
      name: "lorehold_llm_decode_calls",
      help: "llama.cpp decode calls since start (shared by concurrent generations)",
      registers,
      collect() {
        this.set(sources.llmStats()?.decodeCalls ?? 0);
      },
    });
    new Gauge({
      name: "lorehold_llm_prefix_tokens_copied",
      help: "Prompt tokens new conversations took from their mind's prefix snapshot instead of evaluating (shared mind prompts)",
      registers,
      collect() {
        this.set(sources.llmStats()?.prefixTokensCopied ?? 0);
      },
    });
    registerKvMetrics(this.registry, () => sources.llmStats()?.kv);
    new Gauge({
      name: "lorehold_scan_jobs",
      help: "Scan jobs by state",
      labelNames: ["state"],
      registers,
      collect() {
        this.reset();
        for (const [state, n] of Object.entries(sources.scanJobsByState())) this.set({ state }, n);
      },
    });
    if (sources.backends) backendGauges(registers, sources.backends);
    new Gauge({
      name: "lorehold_credits_spent_microcredits",
      help: "Credits spent (microcredits, all teams)",
      registers,
      collect() {
        this.set(sources.creditsSpentMicro());
      },
    });
  }

  recordRequest(method: string, route: string, status: number): void {
    this.requests.inc({ method, route, status: String(status) });
  }

  recordInteract(seconds: number, status: number): void {
    this.interactSeconds.observe({ status: String(status) }, seconds);
  }

  recordGeneration(r: GenerateResult): void {
    this.tokens.inc(r.completionTokens);
    this.promptTokens.inc(r.evaluatedPromptTokens);
    this.promptTokensTotal.inc(r.promptTokens);
  }

  recordReplyGuard(r: ReplyGuardReport): void {
    this.replyAttempts.inc({ attempts: String(r.attempts.length) });
    for (const a of r.attempts) {
      const outcome = a.attempt === r.chosen ? "returned" : "resampled";
      for (const p of a.problems) this.replyProblems.inc({ kind: p.kind, outcome });
      if (a.avoided?.length) this.replySteered.inc();
    }
    if (r.stoppedBy && r.stoppedBy !== "fail") this.replyStops.inc({ why: r.stoppedBy });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
