import { listModels } from "../../models/listModels.ts";
import { DEFAULT_HF_ENDPOINT, resolveModelUri } from "../../models/modelUri.ts";
import { downloadModel } from "../../models/downloadModel.ts";
import { createDownloadProgressBar, formatBytes, lineStream } from "../../models/downloadProgressBar.ts";
import { intFlag, optionalFlag } from "../args.ts";
import { UsageError, type Command } from "../cliTypes.ts";

export const modelListCommand: Command = {
  name: "model list",
  usage: "lorehold model list [--models-dir DIR] [--model M] [--embedding-model NAME] [--json]",
  summary: "installed GGUF and embedding models, with size and which are active",
  run(c) {
    const inv = listModels(c.config);
    const lines = inv.models.map(
      (m) => `${m.active ? "*" : " "} ${m.kind.padEnd(9)} ${formatBytes(m.sizeBytes).padStart(9)}  ${m.name}${m.path.startsWith(inv.modelsDir + "/") ? "" : `  (${m.path})`}`,
    );
    const text = [
      `Models in ${inv.modelsDir}:`,
      ...(lines.length ? lines : ["  (none: put a .gguf file here, or run `lorehold model pull <hf:… or https URL>`)"]),
      `Chat model: ${inv.active.chat ?? "none"}; embedder: ${inv.active.embedding}`,
      ...inv.incomplete.map((d) => `Incomplete download: ${d.name} (${formatBytes(d.sizeBytes)}; \`model pull\` resumes it)`),
    ].join("\n");
    return { json: inv, text };
  },
};

export const modelPullCommand: Command = {
  name: "model pull",
  usage:
    "lorehold model pull <https://…|hf:USER/REPO/FILE.gguf|hf:USER/REPO:QUANT> [--name FILE] [--sha256 HEX] [--retries N] [--models-dir DIR] [--json]" +
    "   (env: HF_TOKEN for gated repos, HF_ENDPOINT for a mirror)",
  summary: "download a model into modelsDir (resumable, size and checksum verified)",
  async run(c) {
    const uri = c.positionals[0];
    if (!uri) throw new UsageError("missing the model URI", this.usage);
    // The only network access of the product. HF_ENDPOINT / HF_TOKEN as huggingface_hub reads them;
    // the token goes to the Hugging Face endpoint only, never to another host named by a URL.
    const hfEndpoint = process.env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT;
    const token = process.env.HF_TOKEN;
    const hfHeaders: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const resolved = await resolveModelUri(uri, { hfEndpoint, headers: hfHeaders });
    const headers = new URL(resolved.url).origin === new URL(hfEndpoint).origin ? hfHeaders : {};
    const fileName = optionalFlag(c.flags, "name") ?? resolved.fileName;
    const bar = c.json ? null : createDownloadProgressBar(fileName, process.stderr.isTTY ? process.stderr : lineStream((l) => c.io.err(l)));
    let result;
    try {
      result = await downloadModel({
        url: resolved.url,
        dir: c.config.modelsDir,
        fileName,
        sha256: optionalFlag(c.flags, "sha256"),
        headers,
        retries: intFlag(c.flags, "retries", this.usage),
        onProgress: bar ? (p) => bar.update(p) : undefined,
      });
    } finally {
      bar?.stop();
    }
    const how = { sha256: "checksum verified", size: "size verified (no checksum known: pass --sha256 to check one)", none: "not verified (the server sent no size)" }[
      result.verified
    ];
    return {
      json: result,
      text: result.alreadyPresent
        ? `${result.path} is already there (${formatBytes(result.sizeBytes)}, sha256 ${result.sha256}).`
        : `Downloaded ${result.path} (${formatBytes(result.sizeBytes)}${result.resumedFrom ? `, resumed at ${formatBytes(result.resumedFrom)}` : ""}): ${how}.\nsha256 ${result.sha256}`,
    };
  },
};

export const modelCommands: Command[] = [modelListCommand, modelPullCommand];
