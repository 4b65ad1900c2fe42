/**
 * An embedding thread: one ONNX Runtime session of the model (a Worker; EmbedderThreads starts them). A pass runs
 * synchronously on the calling thread in onnxruntime-node, so passes run side by side only in threads of their own.
 * Nothing is imported before the "load" message: in the executable the native paths must be published first.
 */
import type { TransformersEmbedder } from "../TransformersEmbedder.ts";
import type { FromEmbedderThread, ToEmbedderThread } from "./threadMessages.ts";

declare const self: Worker;

let embedder: TransformersEmbedder | null = null;
// Messages are handled one at a time, in order: an embed that arrives while the model loads waits for it.
let queue: Promise<void> = Promise.resolve();
// Set as soon as "close" arrives (not in turn): embeds still waiting behind the pass under way are skipped.
let closing = false;

const post = (m: FromEmbedderThread, transfer: ArrayBuffer[] = []) => self.postMessage(m, transfer);

async function handle(m: ToEmbedderThread): Promise<void> {
  if (m.type === "load") {
    try {
      const { installThreadNatives } = await import("../../runtime/threadNatives.ts");
      installThreadNatives(m.natives);
      const { TransformersEmbedder } = await import("../TransformersEmbedder.ts");
      embedder = await TransformersEmbedder.load(m.dir, m.options);
      // The model's file and its pruned copy (~2 × its size) are garbage now; a thread's heap grows too slowly
      // for a collection to come soon on its own.
      Bun.gc(true);
      post({ type: "loaded", id: embedder.id, dims: embedder.dims, maxTokens: embedder.maxTokens });
    } catch (e) {
      post({ type: "failed", id: null, message: (e as Error).message });
    }
    return;
  }
  if (m.type === "close") {
    // The session is released here, on this thread, between passes: the main thread then ends an idle thread.
    // Ending it while a pass runs would abort the process (see EmbedderThread.close).
    const e = embedder;
    embedder = null;
    await e?.dispose().catch(() => {});
    post({ type: "closed" });
    return;
  }
  try {
    if (closing) throw new Error("the embedding thread is closing");
    if (!embedder) throw new Error("the embedding thread has no model loaded");
    const vectors = await embedder.embed(m.texts);
    post({ type: "vectors", id: m.id, vectors }, vectors.map((v) => v.buffer as ArrayBuffer));
  } catch (e) {
    post({ type: "failed", id: m.id, message: (e as Error).message });
  }
}

self.onmessage = (e: MessageEvent<ToEmbedderThread>) => {
  if (e.data.type === "close") closing = true;
  queue = queue.then(() => handle(e.data));
};
