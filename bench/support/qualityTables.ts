/** The tables of bench/quality.ts's world parts: each figure with its counts, the product and the naive baseline side by side. */
import type { ProblemKind } from "../../src/npc/replies/detectors.ts";
import type { Arm, ReplyRecord } from "./qualityWorldRun.ts";

/** What counts as a hygiene failure (over-length is reported on its own: the sentence cap decides it). */
export const HYGIENE: ProblemKind[] = ["empty", "echo", "meta", "roleLabel", "promptEcho", "exampleCopy", "wrongPerson", "repetition", "repeatsPrevious"];

const pct = (n: number, d: number) => (d ? `${Math.round((100 * n) / d)}% (${n}/${d})` : "–");
const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : Number.NaN;
};
const p90 = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil(0.9 * s.length) - 1)] : Number.NaN;
};

export interface ArmFigures {
  grounding: string;
  spread: string;
  secretsTopic: string;
  secretsDirect: string;
  scoping: string;
  echo: string;
  hygiene: string;
  byKind: string;
  overLength: string;
  words: string;
  ttft: string;
  replyFirst: string;
  clientFirst: string;
  resampled: string;
  /** the model's own echo rate: the first sample's, whether or not the guard then resampled */
  rawEcho: string;
  /** the first sample's hygiene problems by kind (what the model does before the guard) */
  firstKinds: string;
  /** samples the guard drew per reply */
  samples: string;
  /** requests the server did not answer 200 (a reply scored as a miss that was never generated) */
  failed: string;
}

export function figures(records: ReplyRecord[], arm: Arm): ArmFigures {
  const mine = records.filter((r) => r.arm === arm);
  if (mine.length === 0) return Object.fromEntries(FIELDS.map((k) => [k, "–"])) as unknown as ArmFigures;
  const g = mine.filter((r) => r.part === "grounding");
  const seeds = [...new Set(g.map((r) => r.seed))].sort((a, b) => a - b);
  const perSeed = seeds.map((s) => {
    const x = g.filter((r) => r.seed === s);
    return Math.round((100 * x.filter((r) => r.hit).length) / Math.max(1, x.length));
  });
  const sec = mine.filter((r) => r.part === "secrets");
  const topic = sec.filter((r) => !r.direct);
  const direct = sec.filter((r) => r.direct);
  const scoping = mine.filter((r) => r.part === "scoping");
  const bad = mine.filter((r) => r.problems.some((p) => HYGIENE.includes(p.kind)));
  const kinds = new Map<string, number>();
  for (const r of mine) for (const p of r.problems) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
  const client = mine.map((r) => r.clientFirstTokenMs).filter((x): x is number => x !== null);
  return {
    grounding: pct(g.filter((r) => r.hit).length, g.length),
    spread: perSeed.length ? `${Math.min(...perSeed)}–${Math.max(...perSeed)}% over ${perSeed.length} seed(s)` : "–",
    secretsTopic: pct(topic.filter((r) => r.hit).length, topic.length),
    secretsDirect: pct(direct.filter((r) => r.hit).length, direct.length),
    scoping: scoping.length ? `${scoping.filter((r) => r.hit).length} / ${scoping.length}` : "–",
    echo: pct(mine.filter((r) => r.problems.some((p) => p.kind === "echo")).length, mine.length),
    hygiene: pct(bad.length, mine.length),
    byKind: [...kinds].map(([k, v]) => `${k} ${v}`).join(", ") || "none",
    overLength: pct(mine.filter((r) => r.problems.some((p) => p.kind === "overLength")).length, mine.length),
    words: `${median(mine.map((r) => r.words))} / ${p90(mine.map((r) => r.words))}`,
    ttft: `${median(mine.map((r) => r.ttftMs))} ms`,
    replyFirst: `${median(mine.map((r) => r.replyFirstTokenMs ?? r.ttftMs))} ms / p90 ${p90(mine.map((r) => r.replyFirstTokenMs ?? r.ttftMs))} ms`,
    clientFirst: client.length ? `${median(client)} ms` : "–",
    resampled: arm !== "lorehold" ? "–" : pct(mine.filter((r) => r.generations > 1).length, mine.length),
    rawEcho: pct(mine.filter((r) => (r.firstProblems ?? r.problems).some((p) => p.kind === "echo")).length, mine.length),
    firstKinds: byKind(mine.map((r) => r.firstProblems ?? r.problems)),
    samples: arm !== "lorehold" ? "–" : `${(mine.reduce((n, r) => n + r.generations, 0) / mine.length).toFixed(2)} (max ${Math.max(...mine.map((r) => r.generations))})`,
    failed: arm !== "lorehold" ? "–" : pct(mine.filter((r) => r.status !== 200).length, mine.length),
  };
}

/** Hygiene problems by kind over the replies (a reply may have several). */
function byKind(problems: { kind: ProblemKind }[][]): string {
  const kinds = new Map<string, number>();
  for (const ps of problems) for (const p of ps) if (HYGIENE.includes(p.kind)) kinds.set(p.kind, (kinds.get(p.kind) ?? 0) + 1);
  return [...kinds].map(([k, v]) => `${k} ${v}`).join(", ") || "none";
}

const FIELDS: (keyof ArmFigures)[] = ["grounding", "spread", "secretsTopic", "secretsDirect", "scoping", "echo", "hygiene", "byKind", "overLength", "words", "ttft", "replyFirst", "clientFirst", "resampled", "rawEcho", "firstKinds", "samples", "failed"];

/** The world's table: one row per figure, a column per arm. */
export function worldTable(records: ReplyRecord[]): string {
  const l = figures(records, "lorehold");
  const n = figures(records, "naive");
  // The naive baseline cut by the product's reply rules (rescore.ts), when the records hold it.
  const c = records.some((r) => r.arm === "naiveCapped") ? figures(records, "naiveCapped") : null;
  const rows: [string, keyof ArmFigures][] = [
    ["grounding (fact in the reply)", "grounding"],
    ["grounding per seed (min–max)", "spread"],
    ["secrets told, question on the topic", "secretsTopic"],
    ["secrets told, direct question", "secretsDirect"],
    ["scoping leaks", "scoping"],
    ["parroting (echo of the player's line)", "echo"],
    ["echo in the first sample (before the guard)", "rawEcho"],
    ["hygiene failures (any)", "hygiene"],
    ["problems by kind", "byKind"],
    ["over maxSentences", "overLength"],
    ["words per reply (median / p90)", "words"],
    ["first token (engine, first sample, median)", "ttft"],
    ["first token of the returned reply (median / p90)", "replyFirst"],
    ["first token event (SSE client, median)", "clientFirst"],
    ["replies resampled by the guard", "resampled"],
    ["samples per reply (mean, max)", "samples"],
    ["hygiene problems of the first sample, by kind (before the guard)", "firstKinds"],
    ["requests not answered 200 (scored, never generated)", "failed"],
  ];
  if (c) return ["| | Lorehold | naive baseline | naive, capped as the product |", "|---|---|---|---|", ...rows.map(([label, k]) => `| ${label} | ${l[k]} | ${n[k]} | ${c[k]} |`)].join("\n");
  return ["| | Lorehold | naive baseline |", "|---|---|---|", ...rows.map(([label, k]) => `| ${label} | ${l[k]} | ${n[k]} |`)].join("\n");
}
