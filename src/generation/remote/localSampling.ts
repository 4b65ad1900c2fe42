/**
 * The truncation the local engine samples with, as llama-server fields: node-llama-cpp's defaults (top-k 40,
 * top-p 0.95, no min-p; its sampler chain runs top-k, top-p, min-p, then temperature, llama-server's order too).
 * llama-server's own default adds min-p 0.05, which drops every token below a twentieth of the likeliest: where a
 * reply's first token is torn between the words and the tail's JSON (the likeliest single token), it cut the many
 * ways of starting the words and left the JSON, so remote replies began with it more often than local ones.
 * Sent with every llama-server sample (the words and the tail) so that a remote turn samples as a local one.
 */
export const LOCAL_SAMPLING = { top_k: 40, top_p: 0.95, min_p: 0 } as const;
