import type { AppContext } from "../core/context.ts";
import type { ChatMessage } from "../llm/types.ts";
import { readSettings, type ProjectSettings } from "../projects/settings.ts";
import { ApiError } from "../core/errors.ts";
import { hasKnowledge, loadMindProfile, type MindProfile } from "./mindProfile.ts";
import { ignoredTagsWarning, visibleTags } from "./visibleTags.ts";
import { retrieveLore, stillVisible, type LoreNote } from "../retrieval/hybridSearch.ts";
import { loadSession } from "./session/sessionStore.ts";
import { mergeHistory } from "./session/mergeHistory.ts";
import type { SessionMessage, TurnNotes } from "./session/sessionTypes.ts";
import { renderMessage, renderScene } from "./prompt/renderTurn.ts";
import { kept } from "./secrets/secretFraming.ts";
import type { KeptSecrets } from "./secrets/smallestChatModels.ts";
import { keepCurrentNow, nowNote } from "./prompt/conditionalLines.ts";
import { sharedLoreForTurn, type SharedNote } from "./sharedLore/sharedLore.ts";
import { fitMindPromptForTurn, fitOptions, type DroppedPart } from "./prompt/fitStaticPrompt.ts";
import { retrieveMemories } from "./memory/retrieveMemories.ts";
import { turnSecrets } from "./secrets/turnSecrets.ts";
import type { InteractRequest } from "./validateInteract.ts";
import { LORE_NOTE_OVERHEAD, MESSAGE_OVERHEAD, TEMPLATE_SLACK, TURN_OVERHEAD, promptBudget, tokenCounter } from "./tokenBudget.ts";
import { gatherConditions, turnsAgo, type TurnGate } from "../retrieval/turnGate.ts";
import type { LoreGate } from "../retrieval/loreGate.ts";
import { behaviourFieldsIgnored, prepareBehaviour, type BehaviourTurn } from "../behaviour/prepareBehaviour.ts";
import { BEHAVIOUR_DELIMITER } from "../behaviour/behaviourPrompt.ts";
import { trustForScope } from "../behaviour/trust.ts";
import { conditionHolds } from "../conditions/compileCondition.ts";
import { worldMemoryNotes } from "../events/worldMemories.ts";

/** Lore chunks retrieved per turn (before dropping those already in the conversation). */
export const LORE_PER_TURN = 4;

export interface PreparedTurn {
  settings: ProjectSettings;
  mind: MindProfile;
  visible: string[];
  warnings: string[];
  /** the conversation before this turn, sanitised and trimmed */
  history: SessionMessage[];
  /** this turn as it will be stored */
  turn: SessionMessage;
  /** lore added this turn, with scores (the preview shows them) */
  newLore: LoreNote[];
  /** memories added this turn */
  newMemories: string[];
  /** lore the mind's static prompt carries for all its players (shared level, in the system message) */
  sharedLore: SharedNote[];
  /** chunk ids this turn's retrieval returned (counted per mind: the shared level's "most retrieved") */
  retrieved: string[];
  messages: ChatMessage[];
  replyTokens: number;
  temperature: number;
  budget: TurnBudget;
  /** the turn's condition scope, conditional knowledge and lore gate (the preview shows them) */
  conditions: TurnGate;
  /** a mind with behaviour: this turn's offered actions, its tail's schema and budget (null: words only) */
  behaviour: BehaviourTurn | null;
  /** whether `messages` carry the kept secrets' notes (the notes above always do: smallestChatModels.ts) */
  keptSecrets: KeptSecrets;
}

/** How the turn was fitted to the generation context (the admin preview shows it). */
export interface TurnBudget {
  /** the context the prompt and reply must fit: the generation backend's (tokenBudget.ts generationContext) */
  contextSize: number;
  /** the mind's reply cap before fitting (replyTokens is what this turn may generate) */
  replyCap: number;
  /** the least the reply may be cut to */
  minReply: number;
  /** tokens of the static prompt (the system message) */
  staticTokens: number;
  /** false: even the mind's core prompt, this turn's line and the shortest reply exceed the context (interact answers 503) */
  fits: boolean;
  /** what the static prompt left out to fit, in the order it went */
  dropped: DroppedPart[];
}


/**
 * Everything up to the model call, with no side effects (beyond keeping the
 * mind's shared-lore choice, sharedLore/, when it has none yet): the mind, the
 * visible tags, the conversation (merged, re-checked against visibility,
 * trimmed) and this turn's notes (new lore, new memories, changed scene).
 * Used by /v1/npc/interact and by the admin preview.
 */
export async function prepareTurn(ctx: AppContext, projectId: string, req: InteractRequest, loaded?: MindProfile): Promise<PreparedTurn> {
  const settings = readSettings(ctx, projectId);
  const mind = loaded ?? loadMindProfile(ctx, projectId, req.entityMindId);
  if (!hasKnowledge(mind)) throw new ApiError(400, "Entity Mind has no knowledge tags configured");
  const key = { projectId, mindId: mind.id, playerId: req.playerId };
  // The player's memories depend on nothing the gather below computes, so their read starts first: under enhanced
  // retrieval a pair's first turn reads its group from LanceDB (its own threads), which then runs while this thread
  // gathers the rest instead of after it.
  const memoryOn = settings.longTermMemoryEnabled;
  const memories =
    memoryOn && req.memory.retrieve
      ? retrieveMemories(ctx, { projectId, mindId: mind.id, playerId: req.playerId, query: req.text, enhanced: settings.enhancedMemoryRetrieval, limit: 5 })
      : null;
  memories?.catch(() => undefined); // awaited below; a turn refused before then must not leave it unhandled
  const session = loadSession(ctx, projectId, mind.id, req.playerId);
  const merged = mergeHistory(session.messages, req.conversationHistory);
  // World state: the scope (with the player's trust in this mind), the mind's conditional knowledge and the lore gate (src/retrieval/turnGate.ts).
  const trust = trustForScope(ctx, key, mind.behaviour);
  const conditions = gatherConditions(ctx, projectId, { mind, playerId: req.playerId, overrides: req.state, history: merged, trust });
  const { tags: visible } = visibleTags(conditions.openTags, req.activeKnowledgeTags);
  const { ignored } = visibleTags(conditions.configuredTags, req.activeKnowledgeTags);
  const warnings = ignored.length ? [ignoredTagsWarning(ignored)] : [];
  if (req.activeKnowledgeTags && visible.length === 0) warnings.push("No knowledge tags remain visible: the reply uses no lore");

  const inForce = conditions.lines.filter((l) => l.applies);
  const secrets = turnSecrets(ctx.db, projectId, (c) => conditionHolds(c, conditions.scope));
  let history = keepCurrentNow(
    secrets.history(sanitiseHistory(ctx, projectId, merged, visible, memoryOn, conditions.lore, !!mind.behaviour)),
    inForce,
  );
  const behaviour = mind.behaviour
    ? prepareBehaviour(ctx, mind.behaviour, {
        key,
        history,
        visible,
        availableActions: req.availableActions,
        actionResults: req.actionResults,
        when: (c) => ({ value: conditionHolds(c, conditions.scope) }),
      })
    : null;
  warnings.push(...(behaviour ? behaviour.warnings : behaviourFieldsIgnored(req)));

  const lastUser = [...history].reverse().find((m) => m.role === "user");
  const query = lastUser ? `${req.text}\n${lastUser.content}` : req.text;
  const inHistory = new Set(history.flatMap((m) => m.notes?.lore?.map((l) => l.chunkId) ?? []));
  // Lore all the mind's players share sits in the static prompt (its KV prefix is snapshotted once);
  // empty when off, or when this turn's activeKnowledgeTags do not open every shared chunk. The static
  // prompt is fitted to the generation backend's context: what it leaves out of the shared lore may come
  // back through this turn's retrieval.
  const fitting = fitOptions(ctx, mind);
  const fit = await fitMindPromptForTurn(ctx, mind, secrets.shared(await sharedLoreForTurn(ctx, projectId, mind, visible)), fitting);
  const sharedLore = fit.shared;
  const known = new Set([...inHistory, ...sharedLore.map((l) => l.chunkId)]);
  const hits = secrets.retrieved(await retrieveLore(ctx, { projectId, query, tags: visible, k: LORE_PER_TURN, gate: conditions.lore }));
  // The first turn brings the lore in; a follow-up adds a chunk only when this turn's best hit is not yet in
  // the conversation (then that one chunk). Lore already in the conversation stays there, so a follow-up
  // evaluates little more than the player's new line: this is what keeps KV-cache reuse worth having.
  const firstTurn = inHistory.size === 0 && (sharedLore.length === 0 || history.length === 0);
  const candidates = firstTurn ? hits.filter((h) => !known.has(h.chunkId)) : hits.length && !known.has(hits[0].chunkId) ? [hits[0]] : [];

  let newMemories: string[] = [];
  if (memories) {
    const known = new Set(history.flatMap((m) => m.notes?.memories ?? []));
    const found = await memories;
    newMemories = found.map((m) => m.text).filter((t) => !known.has(t));
  }
  // World memories (src/events): only this mind's, kept per turn, never in the shared prefix.
  const world = worldMemoryNotes(ctx, { projectId, mindId: mind.id, query: req.text, history });
  history = world.history;

  const scene = renderScene(req.context);
  const lastScene = [...history].reverse().find((m) => m.notes?.scene)?.notes?.scene;
  const notes: TurnNotes = {};
  if (scene && scene !== lastScene) notes.scene = scene;
  const now = nowNote(history, inForce);
  if (now) notes.now = now;
  if (newMemories.length) notes.memories = newMemories;
  if (world.fresh.length) notes.events = world.fresh;
  if (req.unprompted) notes.unprompted = true;
  if (behaviour?.actionResults.length) notes.actionResults = behaviour.actionResults;
  if (behaviour?.note) notes.behaviour = behaviour.note;

  const { contextSize, replyCap, minReply } = fitting;
  const system: ChatMessage = { role: "system", content: fit.text };
  const count = tokenCounter(ctx);
  // The smallest chat models read no kept secret (secrets/smallestChatModels.ts): every message is rendered, counted
  // and sent without them, while the turn's notes keep them for the reply guard, the preview's trace and the session.
  const secretsRead = fitting.keptSecrets ?? "read";
  const render = (m: SessionMessage) => renderMessage(m, secretsRead);
  // The context holds the static prompt, this turn and the reply before any lore or history: the reply
  // gives way (down to minReply) when the player's line and scene leave it less room than its cap.
  // A typed turn's tail follows the reply in the same context: its budget is set aside with the turn.
  const tailTokens = behaviour ? behaviour.maxTokens + count(BEHAVIOUR_DELIMITER) : 0;
  let used = fit.tokens + count(render({ role: "user", content: req.text, notes }).content) + TURN_OVERHEAD;
  const room = contextSize - TEMPLATE_SLACK - used - tailTokens;
  const replyTokens = Math.max(minReply, Math.min(fit.replyCap, room));
  // Lore is taken in rank order while it fits, so a prompt never overflows (llama.cpp would then cut it or refuse it).
  const budget = promptBudget(contextSize, replyTokens + tailTokens);
  const newLore: LoreNote[] = [];
  for (const l of candidates) {
    const cost = secretsRead === "left out" && kept(l) ? 0 : count(l.text) + count(l.documentName) + LORE_NOTE_OVERHEAD;
    if (used + cost > budget) break;
    newLore.push(l);
    used += cost;
  }
  if (newLore.length) notes.lore = newLore.map(({ score: _s, ...l }) => l);
  const timed = conditions.lore.timedOf(newLore.map((l) => l.documentId));
  if (timed.length) notes.timed = timed;
  const turn: SessionMessage = Object.keys(notes).length ? { role: "user", content: req.text, notes } : { role: "user", content: req.text };

  history = trimHistory(ctx, history, {
    maxTurns: settings.maxSessionLength - 1,
    maxTokens: settings.maxSessionTokens,
    budget,
    fixed: [system, render(turn)],
    render,
  });
  const messages: ChatMessage[] = [system, ...history.map(render), render(turn)];
  return {
    settings,
    mind,
    visible,
    warnings,
    history,
    turn,
    newLore,
    newMemories,
    sharedLore,
    retrieved: hits.map((h) => h.chunkId),
    messages,
    replyTokens,
    temperature: mind.responseConfig.temperature,
    budget: { contextSize, replyCap, minReply, staticTokens: fit.tokens, fits: room >= minReply, dropped: fit.dropped },
    behaviour,
    conditions,
    keptSecrets: secretsRead,
  };
}

/**
 * Drops from the conversation whatever the mind may no longer see: lore
 * whose chunk is gone or whose tags no longer meet the visible set (authors
 * change tags; activeKnowledgeTags narrows per request), lore whose document's
 * condition is false or whose timer ran out (`gate`), and memories when
 * long-term memory is off. Knowledge scoping holds across turns this way.
 * A mind that no longer has behaviour shows its past replies as words only.
 */
function sanitiseHistory(ctx: AppContext, projectId: string, history: SessionMessage[], visible: string[], memoryOn: boolean, gate: LoreGate, typed: boolean): SessionMessage[] {
  const ids = history.flatMap((m) => m.notes?.lore?.map((l) => l.chunkId) ?? []);
  const ok = stillVisible(ctx, projectId, ids, visible, gate);
  const ago = turnsAgo(history);
  return history.map((m, i) => {
    if (m.behaviour && !typed) return { role: m.role, content: m.content };
    if (!m.notes) return m;
    const notes: TurnNotes = {};
    const lore = m.notes.lore?.filter((l) => ok.has(l.chunkId) && gate.keeps(l.documentId, ago[i]));
    if (lore?.length) notes.lore = lore;
    if (memoryOn && m.notes.memories?.length) notes.memories = m.notes.memories;
    if (m.notes.scene) notes.scene = m.notes.scene;
    if (m.notes.now?.length) notes.now = m.notes.now;
    if (m.notes.timed?.length) notes.timed = m.notes.timed;
    if (m.notes.events?.length) notes.events = m.notes.events;
    if (m.notes.unprompted) notes.unprompted = true;
    if (typed && m.notes.behaviour) notes.behaviour = m.notes.behaviour;
    if (typed && m.notes.actionResults?.length) notes.actionResults = m.notes.actionResults;
    return Object.keys(notes).length ? { ...m, notes } : { role: m.role, content: m.content };
  });
}

/** Keeps the most recent messages within the turn limit, the session token limit and the context window. */
function trimHistory(
  ctx: AppContext,
  history: SessionMessage[],
  lim: { maxTurns: number; maxTokens: number; budget: number; fixed: ChatMessage[]; render: (m: SessionMessage) => ChatMessage },
): SessionMessage[] {
  const count = tokenCounter(ctx);
  const fixedTokens = lim.fixed.reduce((n, m) => n + count(m.content) + MESSAGE_OVERHEAD, 0);
  const kept: SessionMessage[] = [];
  let tokens = 0;
  let turns = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i];
    const t = count(lim.render(m).content) + MESSAGE_OVERHEAD;
    if (m.role === "user" && turns + 1 > lim.maxTurns) break;
    if (tokens + t > lim.maxTokens || fixedTokens + tokens + t > lim.budget) break;
    kept.unshift(m);
    tokens += t;
    if (m.role === "user") turns++;
  }
  // A conversation shown to the model starts with the player's turn.
  while (kept.length && kept[0].role !== "user") kept.shift();
  return kept;
}
