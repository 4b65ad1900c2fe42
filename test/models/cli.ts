import { runCli } from "../../src/cli/runCli.ts";

export interface CliRun {
  code: number;
  out: string[];
  err: string[];
  /** the one JSON object printed with --json */
  json: any;
}

/** Runs the CLI in process with captured output and an empty environment (no LOREHOLD_* from the caller's). */
export async function cli(...argv: string[]): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, {});
  let json: unknown = null;
  if (argv.includes("--json")) {
    if (out.length !== 1) throw new Error(`expected one line on stdout, got ${JSON.stringify(out)}`);
    json = JSON.parse(out[0]);
  }
  return { code, out, err, json };
}
