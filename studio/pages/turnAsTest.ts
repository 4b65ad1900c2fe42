// The case builder is shared with the server (accepting a recorded candidate builds the same case).
export { appendCase, turnAsTestCase, wordsToKeep, type PlaygroundTurn } from "../../src/loretests/caseFromConversation.ts";
