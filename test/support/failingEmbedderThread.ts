/**
 * The real embedding thread (src/vectors/threads/embedderThreadEntry.ts), which tests can make die or stall: a text
 * "exit this thread" ends the thread as a crash would (process.exit in a worker ends only the worker), "throw in
 * this thread" throws an uncaught error there, and "stall this thread until <path>" keeps the thread busy until that
 * file exists, as a very long pass would (nothing else runs there meanwhile): the test ends the stall when it has seen
 * what it wanted, so no outcome depends on how fast either thread runs. Every other message goes to the real handler.
 */
declare const self: Worker;

import { existsSync } from "node:fs";

import "../../src/vectors/threads/embedderThreadEntry.ts";
const real = self.onmessage!;
self.onmessage = (e: MessageEvent) => {
  const texts: string[] = e.data?.type === "embed" ? e.data.texts : [];
  if (texts.includes("exit this thread")) process.exit(3);
  const stall = texts.find((t) => t.startsWith("stall this thread until "));
  if (stall) while (!existsSync(stall.slice("stall this thread until ".length)));
  if (texts.includes("throw in this thread"))
    setTimeout(() => {
      throw new Error("a bug in the embedding thread");
    });
  else real.call(self, e);
};
