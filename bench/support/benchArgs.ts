/**
 * What the benches that run real models start with: their `--name value` arguments and the fixture models, so a
 * bench run without the fixtures stops at once with how to get them (exit code 2), not part-way.
 */
import { qwenFixture, realFixtures, type RealFixtures } from "../../test/realmodel/realFixtures.ts";

/** The value after `--name` on the command line, or `def` when the flag is absent. */
export function arg(name: string, def: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : def;
}

/** The fixture models, or the process ends (code 2) saying `bench` needs them. */
export function fixturesOrExit(bench: string): RealFixtures {
  const fx = realFixtures();
  if (!fx) missing(bench, "the fixture models are missing");
  return fx;
}

/** The fixture models and Qwen2.5-Coder-0.5B-Instruct, or the process ends (code 2) saying `bench` needs them. */
export function qwenFixturesOrExit(bench: string): { fx: RealFixtures; qwen: string } {
  const fx = realFixtures();
  const qwen = qwenFixture();
  if (!fx || !qwen) missing(bench, "the fixture models (Qwen among them) are missing");
  return { fx, qwen };
}

function missing(bench: string, what: string): never {
  console.error(`bench/${bench}: ${what}; run \`sh scripts/fetch-fixtures.sh\` first.`);
  process.exit(2);
}
