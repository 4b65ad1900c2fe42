import type { Config } from "../config/config.ts";

/** Bun's cap on a connection's idle timeout, in seconds. */
const MAX_IDLE_SECONDS = 255;

/**
 * The idle budget of `POST /v1/npc/interact`. Bun closes a connection that sends nothing for
 * `idleTimeout` seconds (10 by default), and an interaction sends nothing until its reply (or,
 * streamed, its first token): on a CPU under load a cold turn's queue wait and prompt take longer
 * than that. Its silence is bounded by the generation timeout (queue wait included), twice over
 * when the turn also summarises the session into memories, plus a margin.
 */
export function interactIdleSeconds(config: Pick<Config, "generationTimeoutMs" | "idleTimeoutSeconds">): number {
  const budget = Math.ceil((2 * config.generationTimeoutMs) / 1000) + 5;
  return Math.min(MAX_IDLE_SECONDS, Math.max(config.idleTimeoutSeconds, budget));
}

/**
 * `…/v1/npc/interact` or the Studio's playground (the same interaction, streamed), with or without a query, from a
 * request URL. A typed turn sends nothing between its last token and its behaviour tail, so the playground needs
 * the interaction's budget too. A scene's turn (src/scenes) is interactions one after another: the same budget.
 */
export function isInteractPath(url: string): boolean {
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2)).split("?", 1)[0];
  return path === "/v1/npc/interact" || /^\/admin\/v1\/projects\/[^/]+\/playground$/.test(path) || /^\/v1\/scenes\/[^/]+\/turn$/.test(path);
}
