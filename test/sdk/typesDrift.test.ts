import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateTypes } from "../../sdk/typescript/scripts/generate-types.ts";
import { createTestApp, tempDir, type TestApp } from "../support/testApp.ts";

const SDK = new URL("../../sdk/typescript/", import.meta.url).pathname;
const GENERATED = join(SDK, "src/generated/api.ts");

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe("the TypeScript SDK's types follow the server's OpenAPI document", () => {
  test("src/generated/api.ts is what /swagger/json generates (UPDATE_SDK_TYPES=1 rewrites it)", async () => {
    const doc = (await t.call("GET", "/swagger/json")).body;
    const fresh = generateTypes(doc);
    if (process.env.UPDATE_SDK_TYPES === "1") writeFileSync(GENERATED, fresh);
    const checkedIn = readFileSync(GENERATED, "utf8");
    if (checkedIn !== fresh) {
      throw new Error(
        "sdk/typescript/src/generated/api.ts is out of date with the server's OpenAPI document (/swagger/json): " +
          "run `UPDATE_SDK_TYPES=1 bun test test/sdk/typesDrift.test.ts`, check the SDK still type-checks, and commit it.",
      );
    }
    expect(fresh).toContain("export type PostV1NpcInteractBody = {");
  });
  test("the generator: unions, nullables, Elysia's numeric strings, closed and open objects, quoted names", () => {
    const out = generateTypes({
      paths: {
        "/v1/x/{id}": {
          post: {
            operationId: "postV1X-thing",
            parameters: [{ in: "query", name: "limit", schema: { anyOf: [{ type: "string", format: "integer" }, { type: "integer" }] } }],
            requestBody: { content: { "application/json": { schema: { type: "object", required: ["a"], properties: { a: { type: "string", description: "the a" }, "b-c": { anyOf: [{ type: "number" }, { type: "null" }] }, d: { anyOf: [{ const: "x" }, { const: "y" }] }, e: { type: "array", items: { type: "object", properties: { f: { type: "boolean" } } } }, g: { type: "object", additionalProperties: { type: "string" } } } } } } },
            responses: { "202": { content: { "application/json": { schema: { type: "object", properties: {} } } } }, "400": {} },
          },
        },
        "/admin/v1/y": { get: { operationId: "hidden" } },
      },
    });
    expect(out.split("\n").slice(4).join("\n")).toBe(
      [
        "/** Query of POST /v1/x/{id} */",
        "export type PostV1XThingQuery = {",
        "  limit?: number;",
        "};",
        "",
        "/** Body of POST /v1/x/{id} */",
        "export type PostV1XThingBody = {",
        "  /** the a */",
        "  a: string;",
        '  "b-c"?: number | null;',
        '  d?: "x" | "y";',
        "  e?: Array<{",
        "    f?: boolean;",
        "  }>;",
        "  g?: Record<string, string>;",
        "};",
        "",
        "/** 202 response of POST /v1/x/{id} */",
        "export type PostV1XThingResponse = Record<string, unknown>;",
        "",
      ].join("\n"),
    );
  });
  test("the package builds with its own tsconfig (what npm publish ships)", async () => {
    const out = tempDir("sdk-build-");
    try {
      const tsc = new URL("../../node_modules/typescript/bin/tsc", import.meta.url).pathname;
      const r = Bun.spawnSync([process.execPath, tsc, "-p", join(SDK, "tsconfig.json"), "--outDir", out, "--typeRoots", new URL("../../node_modules/@types", import.meta.url).pathname], { stdout: "pipe", stderr: "pipe" });
      expect(r.stdout.toString() + r.stderr.toString()).toBe("");
      expect(r.exitCode).toBe(0);
      const built = await import(join(out, "index.js"));
      expect(typeof built.LoreholdClient).toBe("function");
      let code = "";
      try {
        new built.LoreholdClient({ baseUrl: "", apiKey: "k" });
      } catch (e) {
        code = (e as { code: string }).code;
      }
      expect(code).toBe("CONFIG_ERROR");
      expect(readFileSync(join(out, "index.d.ts"), "utf8")).toContain("LoreholdClient");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
