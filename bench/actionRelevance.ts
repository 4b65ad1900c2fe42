// Lever "offer an action only when the turn relates to it", measured without a model: for each labelled line, the
// actions whose description, parameter names or choices (enum values, the items a reference may name) share a
// content word with the line. Reports, on the chosen half, how many lines calling for an action would still be
// offered it (the ceiling this puts on recall) and how many lines calling for none would be offered nothing (a
// false action made impossible). A word matches on its first 4 letters (a crude stem: "threatens" ~ "threat").
// Usage: bun bench/actionRelevance.ts [--half tuning|heldout|third]
import { parseArgs } from "node:util";
import { halfOf, labelledTurns, shopkeeper, thirdTurns } from "./support/behaviourLabels.ts";

const { values: args } = parseArgs({ options: { half: { type: "string", default: "tuning" } } });
const STOP = new Set("a an and are as at be but by can do for from have i if in is it me my of on or so that the this to was what when will with you your yours".split(" "));
const stems = (text: string) => new Set(text.toLowerCase().match(/\p{L}+/gu)!.filter((w) => w.length > 2 && !STOP.has(w)).map((w) => w.slice(0, 4)));

type Param = { enum?: string[]; "x-ref"?: string };
type Action = { name: string; description: string; params?: { properties: Record<string, Param> } };
const vocab = (a: Action) => {
  const words = [a.name.replace(/_/g, " "), a.description];
  for (const [name, p] of Object.entries(a.params?.properties ?? {}) as [string, Param][]) {
    words.push(name, ...(p.enum ?? []));
    if (p["x-ref"] === "item") words.push(...shopkeeper.items);
  }
  return stems(words.join(" "));
};
const actions = (shopkeeper.behaviour.actions as unknown as Action[]).map((a) => ({ name: a.name, words: vocab(a) }));
const turns = args.half === "third" ? thirdTurns : labelledTurns.filter((_, i) => halfOf(i) === args.half);
let called = 0, kept = 0, none = 0, nothingOffered = 0;
for (const t of turns) {
  const line = stems(t.line);
  const offered = actions.filter((a) => [...line].some((w) => a.words.has(w))).map((a) => a.name);
  if (t.action) {
    called++;
    if (offered.includes(t.action.name)) kept++;
  } else {
    none++;
    if (!offered.length) nothingOffered++;
  }
  console.log(`${t.action?.name ?? "none"}\t${offered.join(",") || "-"}\t${t.line}`);
}
const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(0)} % (${n}/${d})`;
console.log(`\nhalf ${args.half}: lines calling for an action still offered it ${pct(kept, called)}; lines calling for none offered nothing ${pct(nothingOffered, none)}`);
