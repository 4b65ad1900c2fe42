import { checkBackends } from "../../generation/checkBackends.ts";
import { UsageError, type Command } from "../cliTypes.ts";

const usage = "lorehold backends check [--json]";

/** `lorehold backends check`: each configured [[backends]] entry's health, model, context size and a test completion. */
export const backendsCheckCommand: Command = {
  name: "backends check",
  usage,
  summary: "probe each configured generation backend: health, model, context size and a test completion",
  async run(c) {
    const backends = c.config.backends;
    if (backends.length === 0) throw new UsageError("no [[backends]] configured (lorehold.toml or LOREHOLD_BACKENDS)", usage);
    const checks = await checkBackends(backends);
    const text = checks
      .map((r) =>
        [
          `${r.backend} ${r.url} (${r.kind}): ${r.ok ? "ok" : "FAILED"}`,
          `  model: ${r.model ?? "?"}, context: ${r.contextSize ?? "?"} tokens`,
          r.completion
            ? `  test completion (${r.completion.ms} ms, ${r.completion.promptTokens}+${r.completion.completionTokens} tokens): ${JSON.stringify(r.completion.text)}`
            : `  error: ${r.error}`,
        ].join("\n"),
      )
      .join("\n");
    const failed = checks.filter((r) => !r.ok).length;
    if (failed) {
      // the report first, then a non-zero exit for scripts
      c.io.out(c.json ? JSON.stringify({ backends: checks }) : text);
      throw new Error(`${failed} of ${checks.length} backends failed the check`);
    }
    return { json: { backends: checks }, text };
  },
};
