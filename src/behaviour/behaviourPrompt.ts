import type { ParamInput } from "./behaviourModel.ts";
import type { ActionDef, Behaviour } from "./resolveBehaviour.ts";
import { NO_ACTION } from "./tailSchema.ts";

/**
 * The line between the words and the tail. The engine appends it after the words and samples the tail
 * under the grammar; a model that writes it itself ends its words there (a stop trigger). Past turns show
 * it in the same form, so the next prompt matches what the KV cache holds and the model sees what it did.
 */
export const BEHAVIOUR_DELIMITER = "\n\n[Behaviour]\n";

/** A settled turn's behaviour, as the session keeps it with the assistant message and the response shows it. */
export interface TurnBehaviour {
  emotion: { name: string; intensity: number };
  actions: { id: string; name: string; params: Record<string, unknown> }[];
  trust?: { value: number; delta: number; label: string | null };
}

/** An action's result as the caller reported it (the next turn's notes). */
export interface ActionResultNote {
  id: string;
  name: string;
  status: "completed" | "failed" | "aborted";
  detail?: string;
}

/**
 * The behaviour block of a mind's static prompt: the same for every player (no trust value, no narrowing:
 * those go in the turn's note). It lists the actions first, "none" at their head as the usual choice, then the
 * emotions and trust, and shows two tails: one that acts and one that does not. Measured on the labelled
 * set's tuning half (bench/behaviourAccuracy.ts, BENCHMARKS.md "Typed turns: accuracy"): with one example and
 * an empty list, a 0.5B model never acted; an example of each kind lets it choose. The rule that an action is
 * taken only when asked for or plainly demanded goes with the grammar's closing the list after "none"
 * (BENCHMARKS.md "Typed turns: deciding not to act").
 */
export function behaviourBlock(b: Behaviour): string {
  const marker = BEHAVIOUR_DELIMITER.trim();
  const lines = [
    `First answer the player in your own words, as always. After your words, the game adds a line "${marker}" and you write one JSON object on the next line: what you do, how you feel${b.trust ? " and how your trust in the player changes" : ""}.`,
  ];
  if (b.actions.length) {
    lines.push(
      `Actions: most turns need none. Take an action only when the player asks for it or the scene plainly demands it; talk, questions, news and stories need "${NO_ACTION}". At most ${b.maxActionsPerTurn} per turn.`,
      `- ${NO_ACTION}: do nothing (most turns).`,
    );
    for (const a of b.actions) lines.push(actionLine(a));
  } else {
    lines.push(`You take no actions: the list is always [{"name":"${NO_ACTION}"}].`);
  }
  lines.push(`Emotions: ${b.emotions.join(", ")}; intensity from 0 to 10.`);
  if (b.trust) {
    lines.push(
      `Trust: how much you trust this player, from ${b.trust.min} to ${b.trust.max}. Each turn change it by at most ${b.trust.maxStep} either way: up when the player is kind or helpful, down when rude or threatening, 0 otherwise.`,
    );
  }
  const first = b.actions[0];
  if (first) lines.push(`For example, when the player asks for ${first.name}:`, `Very well.\n${marker}\n${exampleTail(b, [{ name: first.name, params: exampleParams(first) }], "happy")}`);
  lines.push(first ? "When nothing calls for an action:" : "For example:", `Is that so?\n${marker}\n${exampleTail(b, [], "neutral")}`);
  return lines.join("\n");
}

function actionLine(a: ActionDef): string {
  const params = a.params.map(([name, p]) => `${name} (${paramKind(p)}${p.description ? `: ${p.description.trim()}` : ""})`);
  return `- ${a.name}: ${a.description}${params.length ? ` Parameters: ${params.join("; ")}.` : ""}`;
}

function paramKind(p: ParamInput): string {
  if ("x-ref" in p) return `the name of ${p["x-ref"] === "item" ? "an" : "a"} ${p["x-ref"]}`;
  if ("enum" in p) return `one of ${p.enum.join(", ")}`;
  switch (p.type) {
    case "string":
      return `text, at most ${p.maxLength} characters`;
    case "boolean":
      return "true or false";
    case "integer":
      return p.minimum !== undefined && p.maximum !== undefined
        ? `a whole number from ${p.minimum} to ${p.maximum}`
        : p.minimum !== undefined
          ? `a whole number of at least ${p.minimum}`
          : p.maximum !== undefined
            ? `a whole number of at most ${p.maximum}`
            : "a whole number";
  }
}

function exampleParams(a: ActionDef): Record<string, unknown> {
  return Object.fromEntries(
    a.params.map(([name, p]) => {
      if ("x-ref" in p) return [name, `<${p["x-ref"]} name>`];
      if ("enum" in p) return [name, p.enum[0]];
      if (p.type === "integer") return [name, p.minimum ?? Math.min(1, p.maximum ?? 1)];
      if (p.type === "boolean") return [name, true];
      return [name, "…"];
    }),
  );
}

function exampleTail(b: Behaviour, actions: { name: string; params: Record<string, unknown> }[], feeling: string): string {
  const name = b.emotions.includes(feeling) ? feeling : b.emotions[0];
  return renderTail({ emotion: { name, intensity: 0.6 }, actions: actions.map((a, i) => ({ id: String(i), ...a })), ...(b.trust ? { trust: { value: 0, delta: 0, label: null } } : {}) });
}

/**
 * The tail of a settled turn as text, in the order and form the grammar writes it: actions without ids ("none"
 * when there were none), the feeling, the trust step (a mind with trust always settles one). What the server
 * settled, not what the model wrote: the model sees its clamped parameters and dropped actions as they happened.
 */
export function renderTail(t: TurnBehaviour): string {
  const tail: Record<string, unknown> = {
    actions: t.actions.length ? t.actions.map((a) => ({ name: a.name, params: a.params })) : [{ name: NO_ACTION }],
    emotion: t.emotion.name,
    intensity: Math.round(t.emotion.intensity * 10),
  };
  if (t.trust) tail.trust = t.trust.delta;
  return JSON.stringify(tail);
}

/** A past reply as the model sees it again: its words, then the delimiter and its tail (as sampled, when kept). */
export function renderReplyWithTail(words: string, t: TurnBehaviour, sampled?: string): string {
  return `${words}${BEHAVIOUR_DELIMITER}${sampled ?? renderTail(t)}`;
}

/**
 * The turn's behaviour note (per player, per turn: never in the static prompt): the player's trust, and the
 * actions offered now when fewer than the catalogue's.
 */
export function behaviourNote(b: Behaviour, o: { trust: { value: number; label: string | null } | null; offered: ActionDef[]; narrowed: boolean }): string | undefined {
  const lines: string[] = [];
  if (b.trust && o.trust) lines.push(`Your trust in this player: ${o.trust.value}${o.trust.label ? ` (${o.trust.label})` : ""}.`);
  if (b.actions.length && o.narrowed) {
    lines.push(o.offered.length ? `Actions possible now: ${o.offered.map((a) => a.name).join(", ")}; no others.` : "No actions are possible now.");
  }
  return lines.length ? lines.join("\n") : undefined;
}

/** The results the caller reported for earlier actions, as the next turn's note. */
export function renderActionResults(results: ActionResultNote[]): string {
  return results.map((r) => `- ${r.name} (${r.id}): ${r.status}${r.detail ? ` (${r.detail})` : ""}`).join("\n");
}
