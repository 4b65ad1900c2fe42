import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { App } from "../../app/App.ts";
import { ensureAdminToken } from "../../admin/adminToken.ts";
import { createApiKey } from "../../auth/apiKeys.ts";
import { openDatabase } from "../../db/openDatabase.ts";
import { dataPaths } from "../../config/config.ts";
import { systemClock } from "../../core/clock.ts";
import { importPack, parsePackText } from "../../packs/importPack.ts";
import { listProjects } from "../../projects/projectService.ts";
import { readMinds } from "../../lore/minds/readMinds.ts";
import demoPack from "../../../examples/thornhaven.yaml" with { type: "text" };
import type { Command } from "../cliTypes.ts";
import { waitForShutdown } from "./serve.ts";
import { ensureChatModel, noModelAdvice } from "./firstRunModel.ts";

interface DemoKeys {
  projectId: string;
  serverKey: string;
  editorKey: string;
}

/**
 * `npm start`: init, load the demo world on first run (with a Server and an
 * Editor key kept in data/demo-keys.json so the demo can be tried again),
 * then serve. A data dir that already holds projects is served as it is.
 */
export const quickstartCommand: Command = {
  name: "quickstart",
  usage: "lorehold quickstart [--port N] [--host H] [--data-dir DIR] [--pull | --no-pull]   (env: LOREHOLD_NO_PULL=1)",
  summary: "init, load the demo world on first run, and serve",
  async run(c) {
    const keysFile = join(c.config.dataDir, "demo-keys.json");
    const db = openDatabase(dataPaths(c.config).db);
    const ctx = { db, clock: systemClock };
    let admin: string;
    let demo: DemoKeys | null = null;
    try {
      admin = ensureAdminToken(db).adminToken;
      if (listProjects(ctx).length === 0) {
        const r = importPack(ctx, parsePackText(demoPack, "thornhaven.yaml"), { monthlyCredits: c.config.defaultMonthlyCredits });
        demo = {
          projectId: r.projectId,
          serverKey: createApiKey(ctx, { projectId: r.projectId, type: "server", name: "demo server key" }).key,
          editorKey: createApiKey(ctx, { projectId: r.projectId, type: "editor", name: "demo editor key" }).key,
        };
        writeFileSync(keysFile, JSON.stringify(demo, null, 2) + "\n", { mode: 0o600 });
      } else if (existsSync(keysFile)) {
        demo = JSON.parse(readFileSync(keysFile, "utf8")) as DemoKeys;
      }
    } finally {
      db.close();
    }
    // No chat model yet: offer the recommended one (on a terminal; `--pull` downloads without asking).
    await ensureChatModel(c.config, c.io, {
      pull: c.flags["no-pull"] === true ? "no" : c.flags.pull === true ? "yes" : "ask",
      interactive: !!process.stdin.isTTY && !!process.stderr.isTTY && !process.env.CI,
      env: process.env,
    });
    const app = await App.start(c.config);
    const base = `http://${c.config.host}:${app.port}`;
    const say = (l = "") => c.io.err(l);
    say();
    say(`Lorehold is listening on ${base}  (OpenAPI: ${base}/swagger)`);
    say(`Admin token: ${admin}`);
    say(`Studio: open ${base}/ in a browser and sign in with the admin token`);
    const mind = demo ? readMinds(app.ctx, demo.projectId, { onlyWithTags: true })[0] : undefined;
    if (demo) {
      say(`Demo world: project ${demo.projectId} (keys in ${keysFile})`);
      say(`  Server Key: ${demo.serverKey}`);
      say(`  Editor Key: ${demo.editorKey}`);
      say();
      say(`  curl -s ${base}/v1/lore/minds -H 'Authorization: Bearer ${demo.editorKey}'`);
      if (mind) {
        say(
          `  curl -s ${base}/v1/npc/interact -H 'Authorization: Bearer ${demo.serverKey}' -H 'Content-Type: application/json' \\\n` +
            `    -d '{"text":"Any news from the road?","entityMindId":"${mind.id}","playerId":"player-1"}'`,
        );
      }
    }
    const answers = app.ctx.modelStatus.state === "loaded" || app.ctx.modelStatus.state === "remote";
    // A wildcard bind address is not one to send a request to: the greeting goes to this machine's loopback.
    const local = c.config.host === "0.0.0.0" || c.config.host === "::" ? `http://127.0.0.1:${app.port}` : base;
    if (demo && mind && answers) await greet(local, demo.serverKey, mind.id, say);
    if (!answers) {
      say();
      say(`No chat model is loaded (${app.ctx.modelStatus.error}): /v1/npc/interact answers 503 until there is one.`);
      for (const line of noModelAdvice(c.config.modelsDir, "").slice(1)) say(line);
    }
    say("Press Ctrl+C to stop.");
    await waitForShutdown(app);
    return "long-running" as const;
  },
};

const GREETING_LINE = "Any news from the road?";

/** One real turn of the demo world in the terminal: the first run shows that the NPC answers, not only how to ask. */
async function greet(base: string, serverKey: string, mindId: string, say: (l?: string) => void): Promise<void> {
  try {
    const res = await fetch(`${base}/v1/npc/interact`, {
      method: "POST",
      headers: { authorization: `Bearer ${serverKey}`, "content-type": "application/json" },
      body: JSON.stringify({ text: GREETING_LINE, entityMindId: mindId, playerId: "quickstart-terminal" }),
      signal: AbortSignal.timeout(120_000),
    });
    const body = (await res.json()) as { character?: string; response?: string; error?: string };
    say();
    if (res.ok) say(`  You: ${GREETING_LINE}\n  ${body.character}: ${body.response}`);
    else say(`  The demo turn answered ${res.status} ${body.error ?? ""}`.trimEnd());
  } catch (e) {
    say(`  The demo turn failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
