import { writeFileSync } from "node:fs";
import { App } from "../../app/App.ts";
import type { Config } from "../../config/config.ts";
import { silentLogger } from "../../ops/logger.ts";
import { listProjects, resolveProject } from "../../projects/projectService.ts";
import { intFlag, optionalFlag } from "../args.ts";
import { UsageError, type Command, type CommandContext } from "../cliTypes.ts";
import { readSuitePaths } from "../../loretests/loadSuites.ts";
import { runInScratchApp, type BootedApp } from "../../loretests/runInScratchApp.ts";
import { compareRuns, runView } from "../../loretests/loreTestService.ts";
import { findRunAnyProject } from "../../loretests/loreTestStore.ts";
import { junitXml } from "../../loretests/junit.ts";
import { progressLine, summaryTable, compareText } from "../../loretests/reportText.ts";

const USAGE =
  "lorehold test [PATHS…] [--project P] [--model FILE] [--backend NAME] [--runs N] [--json | --junit FILE] [--versus-model FILE | --versus-backend NAME] | lorehold test --compare RUN_A RUN_B";

/** Boots an App on the scratch copy (only CLI commands import the App). */
async function bootScratch(config: Config): Promise<BootedApp> {
  const app = await App.create(config, { logger: silentLogger });
  return { ctx: Object.assign(app.ctx, { limiter: app.limiter }), triggerJob: (name) => app.scheduler.trigger(name), stop: () => app.stop() };
}

/** --backend NAME: generate on that one backend of the [[backends]] list (backend-N, its model name or its URL). */
function withBackend(config: Config, name: string): Config {
  const i = config.backends.findIndex((b, n) => `backend-${n}` === name || b.model === name || b.url === name);
  if (i < 0) throw new UsageError(`--backend ${name}: no such backend in the configuration (known: ${config.backends.map((b, n) => `backend-${n} (${b.model})`).join(", ") || "none"})`, USAGE);
  return { ...config, generation: "remote", backends: [config.backends[i]] };
}

function compare(c: CommandContext) {
  const a = optionalFlag(c.flags, "compare");
  const b = c.positionals[0];
  if (!a || !b) throw new UsageError("--compare needs two run ids", USAGE);
  const ctx = c.services();
  const runA = findRunAnyProject(ctx.db, a);
  if (!runA) throw new UsageError(`no lore test run ${a}`, USAGE);
  const diff = compareRuns(ctx, runA.projectId, a, b);
  return { json: diff, text: compareText(diff) };
}

export const loreTestCommand: Command = {
  name: "test",
  usage: USAGE,
  summary: "run lore tests (*.test.yaml) on a scratch copy of a project; exits 1 when a case fails",
  async run(c) {
    if (c.flags.compare !== undefined) return compare(c);
    const ctx = c.services();
    const p = optionalFlag(c.flags, "project");
    const projects = listProjects(ctx);
    if (!p && projects.length !== 1) throw new UsageError(`--project is required (${projects.length} projects in this data dir)`, USAGE);
    const projectId = p ? resolveProject(ctx, p).id : projects[0].id;
    const junit = optionalFlag(c.flags, "junit");
    const runs = intFlag(c.flags, "runs", USAGE);
    const backend = optionalFlag(c.flags, "backend");
    const config = backend ? withBackend(c.config, backend) : c.config;
    const files = await readSuitePaths(c.positionals.length ? c.positionals : ["."]);
    const started = Date.now();
    const { runId, summary } = await runInScratchApp(ctx, config, projectId, files, bootScratch, {
      runs,
      onCase: c.json ? undefined : (o, done, total) => c.io.err(progressLine(o, done, total, Date.now() - started)),
    });
    const run = runView(findRunAnyProject(ctx.db, runId)!);
    if (junit) writeFileSync(junit, junitXml(summary, { runId, model: run.model }));
    const cases = summary.cases.map((o) => ({ name: o.name, mind: o.mindName, source: o.source, passed: o.passed, passRate: o.passRate, requiredRate: o.requiredRate }));
    const versusModel = optionalFlag(c.flags, "versus-model");
    const versusBackend = optionalFlag(c.flags, "versus-backend");
    if (versusModel || versusBackend) {
      // A/B: the same suite again on the other model or backend, then the two runs compared.
      const other = versusBackend ? withBackend(c.config, versusBackend) : { ...c.config, model: versusModel!, generation: "local" as const };
      const b = await runInScratchApp(ctx, other, projectId, files, bootScratch, {
        runs,
        onCase: c.json ? undefined : (o, done, total) => c.io.err(progressLine(o, done, total, Date.now() - started)),
      });
      const diff = compareRuns(ctx, projectId, runId, b.runId);
      return {
        json: { a: { run, cases }, b: { run: diff.b }, compare: diff },
        text: `${summaryTable(run, summary)}\n\n${summaryTable(diff.b, b.summary)}\n\n${compareText(diff)}`,
        exitCode: summary.status === "PASSED" && b.summary.status === "PASSED" ? 0 : 1,
      };
    }
    return { json: { run, cases }, text: summaryTable(run, summary), exitCode: summary.status === "PASSED" ? 0 : 1 };
  },
};
