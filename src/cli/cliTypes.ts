import type { Config } from "../config/config.ts";
import type { ServiceContext } from "../core/context.ts";

/** Thrown for bad arguments: prints the usage line and exits 2. */
export class UsageError extends Error {
  constructor(message: string, readonly usage: string) {
    super(message);
  }
}

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export interface CommandContext {
  argv: string[];
  flags: Record<string, string | boolean | string[]>;
  positionals: string[];
  json: boolean;
  config: Config;
  io: CliIo;
  /** opens the data dir's database (lazily: `model list` needs none) */
  services(): ServiceContext;
}

export interface CommandResult {
  /** printed as one JSON object with --json */
  json: unknown;
  /** human text otherwise (defaults to pretty JSON) */
  text?: string;
  /** the process exit code after printing (default 0): a command whose output reports a failure (lore tests) */
  exitCode?: number;
}

export interface Command {
  /** e.g. "key create" */
  name: string;
  usage: string;
  summary: string;
  run(c: CommandContext): Promise<CommandResult | "long-running"> | CommandResult | "long-running";
}
