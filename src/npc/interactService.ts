import type { InteractDeps } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import type { Principal } from "../auth/apiKeys.ts";
import { findProject } from "../projects/projectService.ts";
import { reserve, settle } from "../credits/ledger.ts";
import { interactionCostMicro, microToCredits } from "../credits/prices.ts";
import { readRateLimits } from "../ratelimit/rateLimitSettings.ts";
import type { GenerateResult } from "../llm/types.ts";
import { prepareTurn, type PreparedTurn } from "./prepareTurn.ts";
import { tokenCounter } from "./tokenBudget.ts";
import { hasKnowledge, loadMindProfile } from "./mindProfile.ts";
import { releaseQuietly, settleTurn } from "./chargeTurn.ts";
import { renderMessage } from "./prompt/renderTurn.ts";
import { addPendingSummary } from "./memory/pendingSummaryStore.ts";
import { MEMORY_SUMMARY_JOB } from "./memory/summarisePending.ts";
import type { InteractRequest } from "./validateInteract.ts";
import { emptyTimings, type InteractTiming } from "../llm/serverTiming.ts";
import { recordHits } from "./sharedLore/sharedLoreStore.ts";
import { BEHAVIOUR_DELIMITER, type TurnBehaviour } from "../behaviour/behaviourPrompt.ts";
import { settleBehaviour } from "../behaviour/settleBehaviour.ts";
import type { SessionMessage } from "./session/sessionTypes.ts";
import { generateReply, type ReplyGuardReport } from "./replies/generateReply.ts";
import { turnGuard } from "./replies/turnGuard.ts";
import { NPC_REPETITION } from "./replies/repetition.ts";

export type { InteractDeps };

export interface InteractResponse {
  success: true;
  response: string;
  character: string;
  metadata: {
    memoryCheckpoint?: boolean;
    warnings?: string[];
    creditsUsed?: number;
    /** a mind with behaviour: what it did with its words (src/behaviour) */
    behaviour?: TurnBehaviour;
  };
}

export interface InteractOptions {
  /** client disconnect: stops generation; credits settle for what was generated */
  signal?: AbortSignal;
  /** streamed reply pieces (SSE) */
  onToken?: (text: string) => void;
  /** a typed turn's settled behaviour, after the last token and before the reply (SSE `emotion` and `action` events) */
  onBehaviour?: (behaviour: TurnBehaviour) => void;
  /** a scene's turn: what others said aloud before it (the reply guard counts repeating one as an echo) */
  heard?: string[];
  /** the reply guard's account of the turn (the playground's trace) */
  onGuard?: (report: ReplyGuardReport) => void;
  /** the turn as prepared (its prompt and trace), before generation: lore tests read what reached the prompt */
  onPrepared?: (prepared: PreparedTurn) => void;
  /** a fixed seed, or temperature 0 (greedy), instead of the mind's sampling: lore tests' exact replies */
  sampling?: { seed?: number; temperature?: number };
  /** filled in: where the request's time went (the route sends it as a Server-Timing header) */
  timing?: InteractTiming & Partial<Pick<GenerateResult, "promptTokens" | "evaluatedPromptTokens" | "completionTokens" | "timeToFirstTokenMs">>;
  /** the caller already counted this request against the rate limits (an event that reacts is one request, one hit) */
  rateCounted?: boolean;
}

const generationFailed = () => new ApiError(503, "Generation failed");

/**
 * POST /v1/npc/interact after validation and authentication: project and
 * mind checks, rate limits, the turn's prompt, a credit reservation, the
 * generation, settlement, the session and — at the session's limit — a
 * memory checkpoint (the session's summary is queued; it runs after the reply).
 */
export async function interact(deps: InteractDeps, principal: Principal, req: InteractRequest, opts: InteractOptions = {}): Promise<InteractResponse> {
  const project = findProject(deps, principal.projectId);
  if (!project) throw new ApiError(404, "Project not found");

  // Mind checks come before the rate limit (a bad id is not counted); retrieval after it (a limited caller costs little).
  const mind = loadMindProfile(deps, project.id, req.entityMindId);
  if (!hasKnowledge(mind)) throw new ApiError(400, "Entity Mind has no knowledge tags configured");
  if (!opts.rateCounted) deps.limiter.hit(project.id, req.playerId, readRateLimits(deps, project.id));
  const p0 = performance.now();
  const prepared = await prepareTurn(deps, project.id, req, mind);
  if (opts.timing) opts.timing.prepareMs = performance.now() - p0;
  opts.onPrepared?.(prepared);

  const llm = deps.generation;
  if (!llm) throw generationFailed();
  if (!prepared.budget.fits) {
    // Nothing to send: the server would refuse it (or llama.cpp cut it). Said once, with the sizes to fix it by.
    const { contextSize, staticTokens, minReply } = prepared.budget;
    deps.log.error("prompt does not fit the generation context: raise the context per slot (llama-server -c / -np, contextSize) or shorten the mind's core prompt", {
      mindId: prepared.mind.id,
      contextSize,
      staticTokens,
      minReply,
    });
    throw generationFailed();
  }
  let promptTokens: number;
  try {
    // An upper bound (cached per message; a remote pool asks its server's /tokenize): the exact count comes back for settlement.
    promptTokens = await llm.reserveTokens(prepared.messages);
  } catch (e) {
    deps.log.error("tokenizer failed", { err: e instanceof Error ? e.message : String(e) });
    throw generationFailed();
  }
  const prices = deps.config.prices;
  // A typed turn's tail (the delimiter and the JSON) is generated too: reserved and charged like the words.
  const bt = prepared.behaviour;
  const tail = bt ? { delimiter: BEHAVIOUR_DELIMITER, jsonSchema: bt.schema, maxTokens: bt.maxTokens, ...(bt.gate && deps.config.actionGate === "on" ? { gate: bt.gate } : {}) } : undefined;
  const tailReserve = tail ? tail.maxTokens + tokenCounter(deps)(BEHAVIOUR_DELIMITER) : 0;
  const hold = reserve(deps, {
    teamId: project.teamId,
    projectId: project.id,
    amount: interactionCostMicro(prices, promptTokens, prepared.replyTokens + tailReserve),
    purpose: "interaction",
  });

  let result: GenerateResult;
  let guard: ReplyGuardReport;
  let tokensDelivered = false;
  const onToken = opts.onToken
    ? (text: string) => {
        tokensDelivered = true;
        opts.onToken!(text);
      }
    : undefined;
  const g0 = performance.now();
  try {
    // The reply guard (replies/): sentence limit, held opening, checks, one resample; it calls llm.generate.
    ({ result, report: guard } = await generateReply(llm, {
      conversationKey: conversationKey(project.id, prepared.mind.id, req.playerId),
      messages: prepared.messages,
      maxTokens: prepared.replyTokens,
      temperature: opts.sampling?.temperature ?? prepared.temperature,
      seed: opts.sampling?.seed,
      signal: opts.signal,
      timeoutMs: deps.config.generationTimeoutMs,
      onToken,
      minTokens: 1,
      timings: opts.timing ? (opts.timing.llm = emptyTimings()) : undefined,
      tail,
      repetition: NPC_REPETITION,
      speaker: prepared.mind.entityName,
    }, turnGuard(prepared, req.text, opts.heard)));
  } catch (e) {
    releaseQuietly(deps, hold.reservationId);
    deps.log.error("generation failed", { err: e instanceof Error ? e.message : String(e), mindId: prepared.mind.id });
    throw generationFailed();
  }
  const generateMs = performance.now() - g0;
  const actual = interactionCostMicro(prices, result.promptTokens, result.completionTokens + (result.tail?.tokens ?? 0));
  const charge = Math.min(actual, hold.amount);
  deps.metrics?.recordGeneration(result);
  deps.metrics?.recordReplyGuard(guard);
  opts.onGuard?.(guard);
  const { promptTokens: pt, evaluatedPromptTokens, completionTokens, timeToFirstTokenMs } = result;
  // Generated tokens as charged: the words and a typed turn's tail.
  const generated = completionTokens + (result.tail?.tokens ?? 0);
  deps.usage?.record({ at: deps.clock.now().getTime(), projectId: project.id, promptTokens: pt, evaluatedPromptTokens, completionTokens: generated, timeToFirstTokenMs, totalMs: generateMs, creditsMicro: Math.min(actual, hold.amount) });
  if (opts.timing) Object.assign(opts.timing, { promptTokens: pt, evaluatedPromptTokens, completionTokens, timeToFirstTokenMs });

  // The charging rule (chargeTurn.ts): no 200 and no streamed token → the hold goes back whole.
  if (result.finishReason === "abort") {
    // The caller left: nothing to answer, and the half turn is not kept. A stream pays for the tokens it delivered.
    if (tokensDelivered) settle(deps, hold.reservationId, charge);
    else releaseQuietly(deps, hold.reservationId);
    if (opts.signal?.aborted) throw new ApiError(499, "Client closed request");
    throw generationFailed(); // an abort nobody asked for is a failure
  }
  if (result.finishReason === "timeout" && result.text.trim() === "") {
    releaseQuietly(deps, hold.reservationId);
    throw generationFailed();
  }

  const metadata: InteractResponse["metadata"] = {};
  metadata.creditsUsed = microToCredits(charge);
  if (prepared.warnings.length) metadata.warnings = prepared.warnings;

  const key = { projectId: project.id, mindId: prepared.mind.id, playerId: req.playerId };
  const reply: SessionMessage = { role: "assistant", content: result.text };
  const messages = [...prepared.history, prepared.turn, reply];
  const count = tokenCounter(deps);
  // A typed turn's tail counts as it will render: settled in the transaction below, its sampled text stands in here.
  const tailCost = bt && result.tail ? count(BEHAVIOUR_DELIMITER + result.tail.text) : 0;
  const tokenCount = messages.reduce((n, m) => n + count(renderMessage(m, prepared.keptSecrets).content), 0) + tailCost;
  const turns = messages.filter((m) => m.role === "user").length;
  const settings = prepared.settings;
  const checkpoint = settings.longTermMemoryEnabled && !req.noMemory && (turns >= settings.maxSessionLength || tokenCount >= settings.maxSessionTokens);
  // Settle, session, interaction count (and a typed turn's trust and cooldowns) in one transaction, only if the
  // mind still exists (else 404, released). At the session's limit the same transaction moves its messages to a
  // pending summary and starts a fresh session: the reply never waits for the summary, and a crash before it
  // runs loses nothing (memory/summarisePending.ts).
  const queueSummary = () =>
    addPendingSummary(deps.db, { ...key, mindName: prepared.mind.entityName, messages, createdAt: deps.clock.now().toISOString() });
  const session = () => {
    if (bt) {
      const settled = settleBehaviour(deps, key, bt, result.tail);
      reply.behaviour = metadata.behaviour = settled.behaviour;
      if (settled.sampledTail) reply.tail = settled.sampledTail;
      if (!settled.valid) (metadata.warnings ??= []).push("The reply's behaviour could not be read: neutral emotion, no actions, trust unchanged");
      if (settled.notes.length) deps.log.info("behaviour settled with changes", { mindId: key.mindId, notes: settled.notes });
    }
    return checkpoint ? { messages: [], tokenCount: 0 } : { messages, tokenCount };
  };
  settleTurn(deps, hold, charge, key, session, checkpoint ? queueSummary : undefined);
  if (metadata.behaviour) opts.onBehaviour?.(metadata.behaviour);
  // What retrieval found for this mind: its most retrieved chunks are the ones its players share (sharedLore/).
  recordHits(deps.db, project.id, prepared.mind.id, prepared.retrieved);

  if (checkpoint) {
    metadata.memoryCheckpoint = true;
    deps.scheduler?.kick(MEMORY_SUMMARY_JOB);
  }
  if (opts.timing) opts.timing.generateMs = generateMs;
  return { success: true, response: result.text, character: prepared.mind.entityName, metadata };
}

export function conversationKey(projectId: string, mindId: string, playerId: string): string {
  return `${projectId}:${mindId}:${playerId}`;
}
