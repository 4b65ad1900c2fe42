import type { PreparedTurn } from "../prepareTurn.ts";
import { personaParts } from "../prompt/systemPrompt.ts";
import { kept } from "../secrets/secretFraming.ts";
import { secretTerms } from "../secrets/secretTerms.ts";
import { replyContextFor } from "./replyContext.ts";
import { stripSecrets } from "../secrets/stripSecrets.ts";
import { loreNote } from "../prompt/renderTurn.ts";
import { GUARD_POLICY, type TurnGuard } from "./generateReply.ts";
import { givenNumbers, statedNumbers } from "./quantities.ts";
import { numberSources, type NumberSource } from "./numberPlaces.ts";
import { nameSources, type NameSources } from "./misnamed.ts";
import { attributionSources } from "./attribution.ts";
import { loreSentences } from "./recitedLine.ts";

/**
 * What the reply guard knows of a prepared turn: the notes it carries (shared, earlier, new), the mind's previous line, and
 * the secrets among the notes with the words only they hold (the persona, the other notes and everything the player
 * said are what a reply may repeat without telling one).
 */
export function turnGuard(
  p: Pick<PreparedTurn, "mind" | "history" | "newLore" | "sharedLore" | "messages"> & Partial<Pick<PreparedTurn, "turn" | "keptSecrets">>,
  playerLine: string,
  heardLines: string[] = [],
): TurnGuard {
  const notes = [...p.sharedLore, ...p.newLore, ...p.history.flatMap((m) => m.notes?.lore ?? [])];
  const previousReply = [...p.history].reverse().find((m) => m.role === "assistant")?.content ?? null;
  const secret = notes.filter(kept);
  const parts = personaParts(p.mind);
  const known = [
    ...notes.filter((n) => !kept(n)).map((n) => `${n.documentName} ${n.text}`),
    ...[parts.identity, parts.personality, parts.backstory, parts.speakingStyle, parts.location, parts.knowledgeDescription].filter((x): x is string => !!x),
    ...parts.relationships, ...parts.hints, ...parts.restrictions,
    playerLine,
    ...heardLines,
    ...p.history.filter((m) => m.role === "user").map((m) => m.content),
  ];
  const byDocument = new Map<string, { name: string; text: string }>();
  for (const n of secret) byDocument.set(n.documentId, { name: n.documentName, text: `${byDocument.get(n.documentId)?.text ?? ""} ${n.text}` });
  const secrets = [...byDocument.values()].map((d) => secretTerms(d.name, d.text, known));
  const playerFacts = [...p.history.flatMap((m) => m.notes?.memories ?? []), ...(p.turn?.notes?.memories ?? [])];
  const context = replyContextFor(p.mind, {
    playerLine,
    noteNames: notes.map((n) => n.documentName),
    previousReply,
    secrets,
    heardLines,
    playerFacts,
    // everything else the turn tells the mind: a run of the example's words found there is the mind's to say
    known: [
      ...notes.map((n) => `${n.documentName}: ${n.text}`),
      ...p.history.map((m) => m.content),
      ...[...p.history.map((m) => m.notes), p.turn?.notes].flatMap((n) => [n?.scene ?? "", ...(n?.events ?? []).map((e) => e.text), ...(n?.now ?? []).map((l) => l.text)]),
    ].filter(Boolean),
  });
  // What the mind was given this turn is its prompt (persona, lore, state, memories, the conversation) and the line.
  // A prompt written without its kept secrets (the smallest chat models, smallestChatModels.ts) is read with them here:
  // the guard judges a reply as it does for any model, the secret check catching what only a secret holds.
  const prompt = [...p.messages.map((m) => m.content), ...(p.keptSecrets === "left out" ? secret.map(loreNote) : [])];
  context.givenNumbers = givenNumbers([...prompt, playerLine, ...heardLines]);
  // The same prompt, read for which number it gives of what: only once a reply states a number it gives.
  let sources: NumberSource[] | undefined;
  const playerLines = [playerLine, ...heardLines, ...p.history.filter((m) => m.role === "user").map((m) => m.content)];
  context.numberPlaces = {
    sources: () => (sources ??= numberSources(prompt)),
    said: playerLines.flatMap((l) => statedNumbers(l).map((n) => n.value)),
  };
  // The same prompt and the player's lines, read for the names they give: only once a reply is judged.
  let names: NameSources | undefined;
  context.names = () => (names ??= nameSources([...prompt, ...playerLines]));
  // The same prompt, read for which person it tells each fact of (the player's own lines restate questions, not facts).
  context.attribution = attributionSources(prompt, context.otherNames, playerLines, p.mind.entityName);
  // read only for the recital check (on by default; a bench's arm without it turns it off)
  if (GUARD_POLICY.checkRecitals) context.loreLines = loreSentences(notes.map((n) => n.text));
  return { context, withoutSecrets: secret.length ? () => stripSecrets(p.messages, secret) : undefined };
}
