import { loadConfig, ConfigError, type Config } from "../config/config.ts";
import { systemClock } from "../core/clock.ts";
import type { ServiceContext } from "../core/context.ts";
import { ApiError } from "../core/errors.ts";
import { openDatabase } from "../db/openDatabase.ts";
import { dataPaths } from "../config/config.ts";
import { parseArgv } from "./args.ts";
import { UsageError, type CliIo, type Command } from "./cliTypes.ts";
import { COMMANDS } from "./commands/index.ts";

export const BOOLEAN_FLAGS = new Set(["json", "help", "pull", "no-pull"]);

/** Flags every command takes that set a configuration key (docs/reference/cli.md lists them). */
export const CONFIG_FLAGS: Record<string, keyof Config> = {
  "data-dir": "dataDir",
  "models-dir": "modelsDir",
  port: "port",
  host: "host",
  model: "model",
  "embedding-model": "embeddingModel",
  threads: "threads",
  parallel: "parallel",
  "public-url": "publicUrl",
};

export function usageText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Lorehold: self-hosted NPC dialogue and lore server",
    "",
    "Usage: lorehold <command> [options]   (every command takes --data-dir DIR and --json)",
    "",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Run `lorehold <command> --help` for its options.",
  ].join("\n");
}

function findCommand(positionals: string[]): { cmd: Command; rest: string[] } | null {
  for (const words of [2, 1]) {
    const name = positionals.slice(0, words).join(" ");
    const cmd = COMMANDS.find((c) => c.name === name);
    if (cmd) return { cmd, rest: positionals.slice(words) };
  }
  return null;
}

const defaultIo: CliIo = { out: (l) => process.stdout.write(l + "\n"), err: (l) => process.stderr.write(l + "\n") };

/** Runs one CLI invocation; returns the process exit code. */
export async function runCli(argv: string[], io: CliIo = defaultIo, env: Record<string, string | undefined> = process.env): Promise<number> {
  const { positionals, flags } = parseArgv(argv, BOOLEAN_FLAGS);
  const json = flags.json === true;
  const fail = (message: string, code: number) => {
    if (json) io.out(JSON.stringify({ error: message }));
    else io.err(`error: ${message}`);
    return code;
  };
  if (positionals.length === 0 || positionals[0] === "help") {
    (positionals.length === 0 && !flags.help ? io.err : io.out)(usageText());
    return positionals.length === 0 && !flags.help ? 2 : 0;
  }
  const found = findCommand(positionals);
  if (!found) {
    io.err(usageText());
    return fail(`unknown command '${positionals.slice(0, 2).join(" ")}'`, 2);
  }
  const { cmd, rest } = found;
  if (flags.help) {
    io.out(`Usage: ${cmd.usage}\n${cmd.summary}`);
    return 0;
  }
  let services: ServiceContext | null = null;
  try {
    const configFlags: Partial<Config> = {};
    for (const [flag, key] of Object.entries(CONFIG_FLAGS)) {
      if (typeof flags[flag] === "string") (configFlags as Record<string, unknown>)[key] = flags[flag];
    }
    const config = loadConfig({ env, flags: configFlags });
    const result = await cmd.run({
      argv,
      flags,
      positionals: rest,
      json,
      config,
      io,
      services: () => (services ??= { db: openDatabase(dataPaths(config).db), clock: systemClock }),
    });
    if (result === "long-running") return 0;
    io.out(json ? JSON.stringify(result.json) : (result.text ?? JSON.stringify(result.json, null, 2)));
    return result.exitCode ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`Usage: ${e.usage}`);
      return fail(e.message, 2);
    }
    if (e instanceof ApiError) {
      const details = (e.extra.details as string[] | undefined) ?? [];
      if (json) {
        io.out(JSON.stringify(e.toBody()));
        return 1;
      }
      io.err(`error: ${e.error}${details.length ? "\n  " + details.join("\n  ") : ""}`);
      return 1;
    }
    if (e instanceof ConfigError) return fail(`configuration: ${e.message}`, 2);
    return fail((e as Error).message ?? String(e), 1);
  } finally {
    (services as ServiceContext | null)?.db.close();
  }
}
