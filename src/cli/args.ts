import { UsageError } from "./cliTypes.ts";

/** Reads a required string flag or throws a UsageError with the command's usage line. */
export function requireFlag(flags: Record<string, unknown>, name: string, usage: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`missing --${name}`, usage);
  return v;
}

export function optionalFlag(flags: Record<string, unknown>, name: string): string | undefined {
  const v = flags[name];
  return typeof v === "string" ? v : undefined;
}

export function intFlag(flags: Record<string, unknown>, name: string, usage: string): number | undefined {
  const v = optionalFlag(flags, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--${name} must be a non-negative number`, usage);
  return n;
}

/**
 * Splits argv into positionals and --flags (`--x v`, `--x=v`, boolean `--x`).
 * `booleans` lists the flags that take no value.
 */
export function parseArgv(argv: string[], booleans: Set<string>): { positionals: string[]; flags: Record<string, string | boolean> } {
  const positionals: string[] = [];
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (eq > 0) flags[name] = a.slice(eq + 1);
      else if (booleans.has(name)) flags[name] = true;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith("--")) flags[name] = argv[++i];
      else flags[name] = true;
    } else positionals.push(a);
  }
  return { positionals, flags };
}
