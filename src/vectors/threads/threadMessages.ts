import type { ThreadNatives } from "../../runtime/threadNatives.ts";
import type { TransformersEmbedderOptions } from "../TransformersEmbedder.ts";

/** The main thread to an embedding thread. */
export type ToEmbedderThread =
  | { type: "load"; dir: string; options: TransformersEmbedderOptions; natives: ThreadNatives | null }
  | { type: "embed"; id: number; texts: string[] }
  /** finish the pass under way, skip the rest, release the model, answer "closed" */
  | { type: "close" };

/** An embedding thread to the main thread. */
export type FromEmbedderThread =
  | { type: "loaded"; id: string; dims: number; maxTokens: number }
  | { type: "vectors"; id: number; vectors: Float32Array[] }
  | { type: "failed"; id: number | null; message: string }
  /** the thread runs no native code any more: ending it now is safe */
  | { type: "closed" };
