/**
 * Watching what an app sends to its model without changing it: the app's generation backend is wrapped in place,
 * so every caller (turns, reactions, scenes, jobs) goes through the wrapper.
 */
import type { GenerationBackend } from "../../src/generation/types.ts";
import type { ChatMessage, GenerateRequest, GenerateResult } from "../../src/llm/types.ts";

interface AppWithGeneration {
  ctx: { generation: GenerationBackend | null };
}

export interface GenerateHooks {
  /** sees each request before it runs; a promise returned holds the request until it settles */
  before?: (req: GenerateRequest) => unknown;
  /** sees each request's result before its caller does */
  after?: (req: GenerateRequest, result: GenerateResult) => void;
}

/** Wraps the app's `generate` with `hooks`; a request that is not held starts at once, as unwrapped. */
export function watchGenerate(app: AppWithGeneration, hooks: GenerateHooks): void {
  const backend = app.ctx.generation;
  if (!backend) throw new Error("the app has no generation backend to watch");
  const generate = backend.generate.bind(backend);
  const run = (req: GenerateRequest) => {
    const result = generate(req);
    const { after } = hooks;
    return after ? result.then((r) => (after(req, r), r)) : result;
  };
  backend.generate = (req) => {
    const held = hooks.before?.(req);
    return held instanceof Promise ? held.then(() => run(req)) : run(req);
  };
}

/** Records the messages of every prompt the app sends to its model, in order, into `into` (returned). */
export function capturePrompts(app: AppWithGeneration, into: ChatMessage[][] = []): ChatMessage[][] {
  watchGenerate(app, { before: (req) => void into.push(req.messages) });
  return into;
}
