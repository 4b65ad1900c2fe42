import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/testApp.ts";
import { buildWorld, type World } from "../support/world.ts";
import { parsePrometheusText, sampleValue } from "./prometheusText.ts";

let t: TestApp;
let w: World;

beforeAll(async () => {
  t = await createTestApp();
  w = buildWorld(t.app.ctx as any);
});
afterAll(() => t.close());

async function scrape() {
  const res = await t.app.handle(new Request("http://localhost/metrics"));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain");
  return parsePrometheusText(await res.text());
}

/** onAfterResponse runs after the response is handed back: give it a tick. */
const settle = () => Bun.sleep(20);

describe("/metrics", () => {
  test("parses as Prometheus text, every family typed and described", async () => {
    const families = await scrape();
    const expected: Record<string, string> = {
      lorehold_http_requests_total: "counter",
      lorehold_interact_duration_seconds: "histogram",
      lorehold_tokens_generated_total: "counter",
      lorehold_llm_queue_depth: "gauge",
      lorehold_llm_active_sequences: "gauge",
      lorehold_llm_decode_calls: "gauge",
      lorehold_llm_prefix_tokens_copied: "gauge",
      lorehold_scan_jobs: "gauge",
      lorehold_credits_spent_microcredits: "gauge",
    };
    for (const [name, type] of Object.entries(expected)) {
      expect(`${name}: ${families.get(name)?.type}`).toBe(`${name}: ${type}`);
      expect(families.get(name)!.help).not.toBe("");
    }
    for (const f of families.values()) expect(`${f.name}: ${f.type}`).not.toEndWith(": untyped");
  });

  test("counts a request by method, route template and status", async () => {
    const res = await t.call("GET", "/v1/lore/tags", { key: w.keys.editor });
    expect(res.status).toBe(200);
    await settle();
    const text = await (await t.app.handle(new Request("http://localhost/metrics"))).text();
    expect(text).toContain('lorehold_http_requests_total{method="GET",route="/v1/lore/tags",status="200"} 1');
    expect(text).toContain("# TYPE lorehold_http_requests_total counter");
  });

  test("routes are templates, and the status is the one sent (errors, unknown routes, returned Responses)", async () => {
    await t.call("GET", `/v1/lore/documents/${w.documents.history}`, { key: w.keys.editor });
    await t.call("GET", "/v1/lore/documents/doc_nope", { key: w.keys.editor });
    await t.call("GET", "/v1/lore/tags"); // no key
    await t.call("GET", "/definitely/not/a/route");
    await t.call("POST", "/v1/npc/interact", { key: w.keys.server, body: { text: "hi", entityMindId: w.minds.garrick, playerId: "p" } }); // no model: 503
    await settle();
    const m = await scrape();
    const count = (method: string, route: string, status: string) => sampleValue(m, "lorehold_http_requests_total", { method, route, status });
    expect(count("GET", "/v1/lore/documents/:documentId", "200")).toBe(1);
    expect(count("GET", "/v1/lore/documents/:documentId", "404")).toBe(1);
    expect(count("GET", "/v1/lore/tags", "401")).toBe(1);
    expect(count("GET", "unmatched", "404")).toBe(1);
    expect(count("POST", "/v1/npc/interact", "503")).toBe(1);
    // no raw ids in labels: one series per route, not per document
    const routes = m.get("lorehold_http_requests_total")!.samples.map((s) => s.labels.route);
    expect(routes.some((r) => r.includes(w.documents.history))).toBe(false);
    expect(sampleValue(m, "lorehold_interact_duration_seconds_count", { status: "503" })).toBe(1);
  });

  test("a 503 from /readyz is counted as 503", async () => {
    const status = t.app.ctx.modelStatus;
    t.app.ctx.modelStatus = { state: "failed", path: "/x.gguf", error: "test" };
    try {
      expect((await t.call("GET", "/readyz")).status).toBe(503);
    } finally {
      t.app.ctx.modelStatus = status;
    }
    await settle();
    expect(sampleValue(await scrape(), "lorehold_http_requests_total", { method: "GET", route: "/readyz", status: "503" })).toBe(1);
  });
});
