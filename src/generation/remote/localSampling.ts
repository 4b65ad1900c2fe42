/**
 * The truncation the local engine samples with, as llama-server fields: node-llama-cpp's defaults (top-k 40,
 * top-p 0.95, no min-p; its sampler chain runs top-k, top-p, min-p, then temperature, llama-server's order too).
 * llama-server's own default adds min-p 0.05, which drops every token below a twentieth of the likeliest: where a
 * small model hesitates between its words and a typed turn's delimiter, that narrowed the first token towards the
 * delimiter, and remote replies came back without words more often than local ones (BENCHMARKS.md, "Remote
 * engines: the words phase": about half of the gap).
 * Sent with every llama-server sample (the words and the tail) so that a remote turn samples as a local one.
 */
export const LOCAL_SAMPLING = { top_k: 40, top_p: 0.95, min_p: 0 } as const;
