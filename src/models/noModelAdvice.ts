/** The recommended CPU chat model (README, "Which model"): what a first run offers to download. */
export const RECOMMENDED_CHAT_MODEL = {
  uri: "hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q8_0.gguf",
  label: "Qwen2.5-0.5B-Instruct Q8_0 (~0.7 GB)",
} as const;

/**
 * The ways to get replies when no chat model is loaded, one per line, the same in the terminal (`npm start`) and
 * in the Studio's playground, so a first run on a machine without the internet still says exactly what to do.
 */
export function noModelOptions(modelsDir: string): string[] {
  return [
    `download here: lorehold model pull ${RECOMMENDED_CHAT_MODEL.uri}`,
    `offline: run that command (or \`npm start\`) on a machine with internet, then copy the .gguf file into ${modelsDir}`,
    `use a llama-server you already run: LOREHOLD_GENERATION=remote LOREHOLD_BACKENDS=http://HOST:PORT npm start`,
  ];
}

/** The terminal's form: what happened, then one line per way out, then where to read more. */
export function noModelAdvice(modelsDir: string, why: string): string[] {
  return [
    `${why} To give the NPCs a voice, do one of these, then start again:`.trimStart(),
    ...noModelOptions(modelsDir).map((o) => `  - ${o}`),
    `  See docs/models-and-performance.md for the choice of model.`,
  ];
}
