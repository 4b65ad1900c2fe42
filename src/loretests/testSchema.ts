import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { LIMITS } from "../lore/validate/fields.ts";
import { STATE_KEY_PATTERN, STATE_LIMITS } from "../state/stateKeys.ts";

/**
 * The lore test format (docs/lore-tests.md), in one place: a pack's `tests:` section and a `*.test.yaml`
 * file's `tests:` are checked against it (src/packs/checkShape.ts says what is wrong, path by path), the
 * admin API validates suites with it, and the runner's types come from it. Every object is closed: a
 * misspelt expectation is a problem, never an expectation silently skipped.
 */

export const LORE_TEST_LIMITS = { cases: 500, turns: 20, history: 40, memories: 20, runs: 50, terms: 50, termChars: 200, lineChars: 4_000 } as const;

const closed = { additionalProperties: false } as const;
const Opt = <T extends TSchema>(s: T) => Type.Optional(Type.Union([s, Type.Null()]));
const Text = (max: number) => Type.String({ maxLength: max, pattern: "\\S", problem: "must be a non-empty string" });
const Terms = Type.Array(Text(LORE_TEST_LIMITS.termChars), { maxItems: LORE_TEST_LIMITS.terms });
const StateValue = Type.Union([Type.Boolean(), Type.Number(), Type.String({ maxLength: STATE_LIMITS.stringChars })], {
  problem: `must be true or false, a number or a string of at most ${STATE_LIMITS.stringChars} characters`,
});
const StateMap = Type.Record(Type.String({ pattern: STATE_KEY_PATTERN }), StateValue, {
  maxProperties: STATE_LIMITS.keysPerScope,
  keyProblem: "is not a state key: lower-case dotted names such as quest.flood.stage",
});

export const ExpectSchema = Type.Object(
  {
    /** the reply says at least one of these (case-insensitive, whole words) */
    mentions: Opt(Terms),
    /** the reply says every one of these */
    mentionsAll: Opt(Terms),
    /** the reply says none of these */
    never: Opt(Terms),
    /** a chunk of each of these documents (key, name or id) reached the prompt: read on the turn's trace */
    knowsFrom: Opt(Terms),
    /** nothing of these documents or tags reached the prompt, and the reply tells none of them */
    noLeakOf: Opt(Terms),
    /** a mind with behaviour: the action it took (`none`: no action) */
    action: Opt(Text(LIMITS.key)),
    /** a mind with behaviour: the emotion it showed */
    emotion: Opt(Text(LIMITS.key)),
    /** a mind with behaviour: the player's trust after the turn, within these bounds */
    trust: Opt(Type.Object({ min: Opt(Type.Number({ minimum: -100, maximum: 100 })), max: Opt(Type.Number({ minimum: -100, maximum: 100 })) }, closed)),
    maxSentences: Opt(Type.Integer({ minimum: 1, maximum: 100 })),
    /** the reply guard's checks find nothing (src/npc/replies/detectors.ts) */
    inCharacter: Opt(Type.Boolean()),
    maxFirstTokenMs: Opt(Type.Integer({ minimum: 1, maximum: 600_000 })),
  },
  closed,
);

export const TurnSchema = Type.Object(
  {
    say: Text(LORE_TEST_LIMITS.lineChars),
    /** a mind with behaviour: the actions this turn offers (ids of its actions) */
    availableActions: Opt(Type.Array(Text(LIMITS.key), { maxItems: 50 })),
    /** state for this turn only, laid over the player's (the interact request's `state`) */
    state: Opt(StateMap),
    expect: Opt(ExpectSchema),
  },
  closed,
);

export const HistoryLineSchema = Type.Object(
  { role: Type.Union([Type.Literal("player"), Type.Literal("npc")]), text: Text(LORE_TEST_LIMITS.lineChars) },
  closed,
);

export const CaseSchema = Type.Object(
  {
    name: Text(LIMITS.name),
    /** the Entity Mind: its pack key, its name or its id */
    mind: Text(LIMITS.name),
    /** world and player state seeded into the scratch project before the first turn */
    state: Opt(Type.Object({ world: Opt(StateMap), player: Opt(StateMap) }, closed)),
    /** memories of this player with this mind, seeded before the first turn */
    memories: Opt(Type.Array(Text(LORE_TEST_LIMITS.lineChars), { maxItems: LORE_TEST_LIMITS.memories })),
    /** the conversation so far (the interact request's conversationHistory) */
    history: Opt(Type.Array(HistoryLineSchema, { maxItems: LORE_TEST_LIMITS.history })),
    /** the player's trust in a mind with behaviour, seeded before the first turn */
    trust: Opt(Type.Number({ minimum: -100, maximum: 100 })),
    turns: Type.Array(TurnSchema, { minItems: 1, maxItems: LORE_TEST_LIMITS.turns }),
    /** how many times the whole conversation runs (each from a fresh player); default 1 */
    runs: Opt(Type.Integer({ minimum: 1, maximum: LORE_TEST_LIMITS.runs })),
    /** the share of runs that must pass (default 1: every run) */
    passRate: Opt(Type.Number({ minimum: 0, maximum: 1 })),
    /** sampling seed of the first run (run i uses seed + i) */
    seed: Opt(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
    /** temperature 0: the most likely reply, the same on every run of one machine */
    greedy: Opt(Type.Boolean()),
  },
  closed,
);

/** A `*.test.yaml` file, and the shape of a pack's `tests:` section (CaseSchema items). */
export const LoreTestFileSchema = Type.Object(
  {
    /** the project the suite is written for (a name, informational: the CLI's --project chooses) */
    project: Opt(Text(LIMITS.name)),
    tests: Type.Array(CaseSchema, { maxItems: LORE_TEST_LIMITS.cases }),
  },
  { ...closed, title: "Lorehold lore tests" },
);

export type LoreTestCase = Static<typeof CaseSchema>;
export type LoreTestTurn = Static<typeof TurnSchema>;
export type LoreTestExpect = Static<typeof ExpectSchema>;

export const INVALID_TESTS = "Invalid lore tests";
