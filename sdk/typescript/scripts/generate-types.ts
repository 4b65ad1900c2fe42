/**
 * Generates src/generated/api.ts from Lorehold's OpenAPI document
 * (`GET /swagger/json`): one Body / Query / Response type per /v1 operation,
 * named after its operationId. The repository's test/sdk/typesDrift.test.ts
 * regenerates it from the running server and fails on any difference.
 *
 *   bun scripts/generate-types.ts http://127.0.0.1:8080/swagger/json > src/generated/api.ts
 */

type Schema = Record<string, any>;

export function generateTypes(doc: Schema): string {
  const out: string[] = [
    "// GENERATED from Lorehold's OpenAPI document (/swagger/json) by scripts/generate-types.ts. Do not edit:",
    "// regenerate with `UPDATE_SDK_TYPES=1 bun test test/sdk/typesDrift.test.ts` in the Lorehold repository.",
    "/* eslint-disable */",
    "",
  ];
  const paths = Object.keys(doc.paths ?? {}).filter((p) => p.startsWith("/v1/")).sort();
  for (const path of paths) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const op = doc.paths[path][method];
      if (!op) continue;
      const name = pascal(op.operationId ?? `${method} ${path}`);
      const title = `${method.toUpperCase()} ${path}${op.summary ? ` — ${op.summary}` : ""}`;
      const query = (op.parameters ?? []).filter((p: Schema) => p.in === "query");
      if (query.length) {
        const obj = { type: "object", required: query.filter((p: Schema) => p.required).map((p: Schema) => p.name), properties: Object.fromEntries(query.map((p: Schema) => [p.name, { ...p.schema, description: p.description ?? p.schema?.description }])) };
        out.push(`/** Query of ${title} */`, `export type ${name}Query = ${tsType(obj, 0)};`, "");
      }
      const body = op.requestBody?.content?.["application/json"]?.schema;
      if (body) out.push(`/** Body of ${title} */`, `export type ${name}Body = ${tsType(body, 0)};`, "");
      const ok = Object.keys(op.responses ?? {}).sort().find((s) => /^2\d\d$/.test(s));
      const res = ok ? op.responses[ok]?.content?.["application/json"]?.schema : undefined;
      if (res) out.push(`/** ${ok} response of ${title} */`, `export type ${name}Response = ${tsType(res, 0)};`, "");
    }
  }
  return `${out.join("\n").trimEnd()}\n`;
}

function pascal(s: string): string {
  return s.split(/[^A-Za-z0-9]+/).filter(Boolean).map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function tsType(s: Schema | undefined, depth: number): string {
  if (!s || typeof s !== "object") return "unknown";
  const variants = s.anyOf ?? s.oneOf;
  if (Array.isArray(variants)) {
    // Elysia's numeric fields: a number, or a numeric string in query strings
    const numeric = variants.length === 2 && variants.some((v: Schema) => v.type === "string" && (v.format === "integer" || v.format === "number"));
    if (numeric && variants.some((v: Schema) => v.type === "integer" || v.type === "number")) return "number";
    return union(variants.map((v: Schema) => tsType(v, depth)));
  }
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map((v: unknown) => JSON.stringify(v)));
  if (Array.isArray(s.type)) return union(s.type.map((t: string) => tsType({ ...s, type: t }, depth)));
  switch (s.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = tsType(s.items, depth);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object":
      return objectType(s, depth);
    default:
      return s.properties ? objectType(s, depth) : "unknown";
  }
}

function objectType(s: Schema, depth: number): string {
  const props = Object.entries((s.properties ?? {}) as Record<string, Schema>);
  const extra = s.additionalProperties;
  if (props.length === 0) {
    if (extra && typeof extra === "object") return `Record<string, ${tsType(extra, depth)}>`;
    return "Record<string, unknown>";
  }
  const required = new Set<string>(s.required ?? []);
  const pad = "  ".repeat(depth + 1);
  const lines = ["{"];
  for (const [name, sub] of props) {
    if (sub?.description) lines.push(`${pad}/** ${String(sub.description).replace(/\*\//g, "*\\/").replace(/\s*\n\s*/g, " ")} */`);
    lines.push(`${pad}${IDENT.test(name) ? name : JSON.stringify(name)}${required.has(name) ? "" : "?"}: ${tsType(sub, depth + 1)};`);
  }
  if (extra && typeof extra === "object") lines.push(`${pad}[key: string]: ${tsType(extra, depth + 1)} | undefined;`);
  lines.push(`${"  ".repeat(depth)}}`);
  return lines.join("\n");
}

function union(parts: string[]): string {
  const uniq = [...new Set(parts)];
  return uniq.length === 1 ? uniq[0] : uniq.map((p) => (p.includes("\n") || !p.includes("|") ? p : `(${p})`)).join(" | ");
}

if ((import.meta as any).main) {
  const url = process.argv[2] ?? "http://127.0.0.1:8080/swagger/json";
  const res = await fetch(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  process.stdout.write(generateTypes((await res.json()) as Schema));
}
