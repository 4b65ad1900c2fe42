import {
  DEFAULT_EMOTIONS,
  DEFAULT_MAX_ACTIONS_PER_TURN,
  DEFAULT_TRUST,
  type ActionInput,
  type BehaviourInput,
  type ParamInput,
} from "./behaviourModel.ts";

/** One action of a mind's catalogue, defaults applied. */
export interface ActionDef {
  name: string;
  description: string;
  /** parameter name → its schema, in the authored order */
  params: [string, ParamInput][];
  cooldownTurns: number;
  maxPerTurn: number;
  when: string | null;
}

export interface TrustConfig {
  min: number;
  max: number;
  initial: number;
  maxStep: number;
  /** ascending thresholds */
  labels: { min: number; label: string }[];
}

/** A mind's behaviour as the runtime uses it: every default applied. */
export interface Behaviour {
  emotions: string[];
  actions: ActionDef[];
  maxActionsPerTurn: number;
  /** null: the mind keeps no trust */
  trust: TrustConfig | null;
  /** the action gate's threshold, 0–1 (null: the server's default) */
  actionGate: number | null;
}

/** Labels for the default range's shape, as shares of the range (hostile … devoted). */
const DEFAULT_LABELS: [number, string][] = [
  [0, "hostile"],
  [0.3, "wary"],
  [0.45, "neutral"],
  [0.7, "friendly"],
  [0.9, "devoted"],
];

export function resolveTrust(t: BehaviourInput["trust"]): TrustConfig | null {
  if (!t || t.enabled === false) return null;
  const min = t.min ?? Math.min(DEFAULT_TRUST.min, t.max ?? DEFAULT_TRUST.max);
  const max = t.max ?? Math.max(DEFAULT_TRUST.max, min);
  const initial = t.initial ?? Math.min(max, Math.max(min, DEFAULT_TRUST.initial));
  const labels = t.labels?.length
    ? [...t.labels].sort((a, b) => a.min - b.min)
    : DEFAULT_LABELS.map(([share, label]) => ({ min: min + Math.round(share * (max - min)), label }));
  return { min, max, initial, maxStep: t.maxStep ?? DEFAULT_TRUST.maxStep, labels };
}

function resolveAction(a: ActionInput): ActionDef {
  return {
    name: a.name,
    description: a.description.trim(),
    params: Object.entries(a.params?.properties ?? {}),
    cooldownTurns: a.cooldownTurns ?? 0,
    maxPerTurn: a.maxPerTurn ?? Number.POSITIVE_INFINITY,
    when: a.when?.trim() || null,
  };
}

/** The stored (authored) behaviour with its defaults; null stays null (the mind answers without a tail). */
export function resolveBehaviour(stored: BehaviourInput | null): Behaviour | null {
  if (!stored) return null;
  return {
    emotions: stored.emotions?.length ? [...stored.emotions] : [...DEFAULT_EMOTIONS],
    actions: (stored.actions ?? []).map(resolveAction),
    maxActionsPerTurn: stored.maxActionsPerTurn ?? DEFAULT_MAX_ACTIONS_PER_TURN,
    trust: resolveTrust(stored.trust),
    actionGate: stored.actionGate ?? null,
  };
}

/** The label of a trust value: the highest threshold it reaches (the lowest label below every threshold). */
export function trustLabel(trust: TrustConfig, value: number): string | null {
  let label: string | null = trust.labels[0]?.label ?? null;
  for (const l of trust.labels) if (value >= l.min) label = l.label;
  return label;
}

export function clampTrust(trust: TrustConfig, value: number): number {
  return Math.min(trust.max, Math.max(trust.min, Math.round(value)));
}
