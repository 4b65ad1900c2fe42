import type { MindProfile } from "../mindProfile.ts";
import { personaParts } from "../prompt/systemPrompt.ts";
import type { ReplyContext } from "./detectors.ts";
import type { SecretTerms } from "../secrets/secretTerms.ts";

/** What a turn's reply is checked against: the player's line, the mind's prompt lines, the notes' names, its previous line. */
export function replyContextFor(
  mind: MindProfile,
  turn: { playerLine: string; noteNames: string[]; previousReply: string | null; secrets?: SecretTerms[]; heardLines?: string[]; playerFacts?: string[] },
): ReplyContext {
  const p = personaParts(mind);
  const structuralLines = [p.identity, p.location, p.knowledgeDescription, p.rules, ...p.relationships, ...p.restrictions].filter(
    (l): l is string => !!l,
  );
  const narrativeLines = [p.personality, p.backstory, p.backstorySummary, p.speakingStyle].filter((l): l is string => !!l);
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
  };
}
