import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { App } from "../../../src/app/App.ts";
import { ensureAdminToken } from "../../../src/admin/adminToken.ts";
import { silentLogger } from "../../../src/ops/logger.ts";
import { tempDir, testConfig } from "../../support/testApp.ts";
import { ensureTinyModel } from "../../support/tinyGguf.ts";

export const CHROMIUM = process.env.LOREHOLD_CHROMIUM ?? "/usr/bin/chromium";
export const SCREENSHOTS = join(import.meta.dir, "../../../test-results/studio");

/** Chromium present? If not, the e2e tests skip, loudly. */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.warn(
    `\n*** Studio e2e tests SKIPPED: no Chromium at ${CHROMIUM}. Install Debian's package (scripts/ci/studio.sh does: apt-get install -y chromium) or set LOREHOLD_CHROMIUM. ***\n`,
  );
  return false;
}

export interface Studio {
  app: App;
  base: string;
  token: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** console errors and page errors seen so far */
  errors: string[];
  shot(name: string): Promise<string>;
  close(): Promise<void>;
}

export interface Chromium {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** console errors and page errors seen so far */
  errors: string[];
}

/** A fresh headless Chromium on one page, its relative URLs resolved against `base`, its console errors collected. */
export async function openChromium(base: string, viewport = { width: 1280, height: 800 }): Promise<Chromium> {
  const { chromium } = await import("playwright-core");
  // launch() gives every run a fresh temporary profile (and removes it on close).
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  // A new context is a fresh profile: no cookies, no storage.
  const context = await browser.newContext({ viewport, acceptDownloads: true, baseURL: base });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (m) => m.type() === "error" && errors.push(`${m.text()} (at ${m.location().url}:${m.location().lineNumber})`));
  page.on("pageerror", (e) => errors.push(String(e)));
  return { browser, context, page, errors };
}

/** A real server (listening on a free port, the tiny model loaded unless `model: false`, jobs running) and a fresh headless Chromium. */
export async function startStudio(opts: { model?: boolean; maxReplyTokens?: number } = {}): Promise<Studio> {
  const dir = tempDir("lorehold-studio-e2e-");
  const model = ensureTinyModel(undefined, { nCtx: 2048 });
  // The action gate off: the random-weight model reads acting at ~0.3, never the gate's 0.9, and the playground's
  // action panel and result report are what these tests exercise (the gate itself: test/llm/tailGate.test.ts).
  const config = testConfig(dir, { port: 0, host: "127.0.0.1", model, parallel: 2, contextSize: 2048, maxReplyTokens: opts.maxReplyTokens ?? 16, actionGate: "off" });
  const app = await App.start(config, { logger: silentLogger, loadModel: opts.model !== false });
  const base = `http://127.0.0.1:${app.port}`;
  const token = ensureAdminToken(app.db).adminToken;
  const { browser, context, page, errors } = await openChromium(base);
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    app,
    base,
    token,
    browser,
    context,
    page,
    errors,
    async shot(name) {
      const path = join(SCREENSHOTS, `${name}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await browser.close().catch(() => {});
      await app.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Signs in through the page as a person would. */
export async function signInThroughPage(s: { page: Page; token: string }): Promise<void> {
  await s.page.goto("/");
  await s.page.getByLabel("Admin token").fill(s.token);
  await s.page.getByRole("button", { name: "Sign in" }).click();
  await s.page.getByRole("heading", { name: "Projects" }).waitFor();
}

/** A click in the project's side navigation. */
export const nav = (s: { page: Page }, name: string) => s.page.getByRole("navigation", { name: "Project sections" }).getByRole("link", { name, exact: true }).click();
