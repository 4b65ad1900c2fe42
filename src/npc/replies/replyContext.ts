import type { MindProfile } from "../mindProfile.ts";
import { personaParts } from "../prompt/systemPrompt.ts";
import type { ReplyContext } from "./detectors.ts";
import type { SecretTerms } from "../secrets/secretTerms.ts";
import { exampleLines } from "../../llm/transcriptTurn.ts";

/**
 * What a turn's reply is checked against: the player's line, the mind's prompt lines, the notes' names, its previous
 * line, and the example exchange a base model is shown (`known`: the turn's notes and what else the mind was told,
 * whose words are its own to say even where the example has them too).
 */
export function replyContextFor(
  mind: MindProfile,
  turn: { playerLine: string; noteNames: string[]; previousReply: string | null; secrets?: SecretTerms[]; heardLines?: string[]; playerFacts?: string[]; known?: string[] },
): ReplyContext {
  const p = personaParts(mind);
  const structuralLines = [p.identity, p.location, p.knowledgeDescription, p.rules, ...p.relationships, ...p.restrictions].filter(
    (l): l is string => !!l,
  );
  const narrativeLines = [p.personality, p.backstory, p.backstorySummary, p.speakingStyle].filter((l): l is string => !!l);
  // Checked whatever the model: a chat model never reads the example, so it says its words only where its own texts
  // hold them (and then they are not a copy), and a remote backend's layout is not known here.
  const example = exampleLines();
  return {
    playerLine: turn.playerLine,
    mindName: mind.entityName,
    otherNames: mind.relationships.map((r) => r.otherName),
    structuralLines,
    narrativeLines,
    hintLines: p.hints,
    noteNames: [...new Set(turn.noteNames)],
    previousReply: turn.previousReply,
    maxSentences: mind.responseConfig.maxSentences,
    secrets: turn.secrets ?? [],
    ...(turn.heardLines?.length ? { heardLines: turn.heardLines } : {}),
    ...(turn.playerFacts?.length ? { playerFacts: turn.playerFacts } : {}),
    ...(example.length
      ? { example: { lines: example, known: [...structuralLines, ...narrativeLines, ...p.hints, turn.playerLine, ...(turn.heardLines ?? []), ...(turn.playerFacts ?? []), ...turn.noteNames, ...(turn.known ?? [])] } }
      : {}),
  };
}
