/**
 * Turns texts into fixed-size vectors. `id` names the model *and* its version:
 * vectors from different ids are never comparable, so the vector store records
 * the id it was built with and re-embeds when it changes (DESIGN.md "Retrieval").
 */
export interface Embedder {
  readonly id: string;
  readonly dims: number;
  /** One L2-normalised vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  dispose?(): Promise<void>;
}
