/**
 * The real embedding thread (src/vectors/threads/embedderThreadEntry.ts), which tests can make die or stall: a text
 * "exit this thread" ends the thread as a crash would (process.exit in a worker ends only the worker), "throw in
 * this thread" throws an uncaught error there, and "stall this thread" keeps the thread busy for 1.5 s as a very
 * long pass would (nothing else runs there meanwhile). Every other message goes to the real handler.
 */
declare const self: Worker;

import "../../src/vectors/threads/embedderThreadEntry.ts";
const real = self.onmessage!;
self.onmessage = (e: MessageEvent) => {
  const texts: string[] = e.data?.type === "embed" ? e.data.texts : [];
  if (texts.includes("exit this thread")) process.exit(3);
  if (texts.includes("stall this thread")) {
    const end = Date.now() + 1_500;
    while (Date.now() < end);
  }
  if (texts.includes("throw in this thread"))
    setTimeout(() => {
      throw new Error("a bug in the embedding thread");
    });
  else real.call(self, e);
};
