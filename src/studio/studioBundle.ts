import path from "node:path";
import { embeddedStudio } from "./embeddedStudio.ts";
import type { StudioBundle, StudioFile } from "./studioTypes.ts";

export type { StudioBundle, StudioFile };


export const STUDIO_ENTRY = path.resolve(import.meta.dir, "../../studio/main.tsx");

/** Bundles studio/ with Bun (minified, no source maps, everything inlined: no CDN). */
export async function buildStudio(entry = STUDIO_ENTRY): Promise<StudioBundle> {
  const result = await Bun.build({
    entrypoints: [entry],
    target: "browser",
    minify: true,
    naming: { entry: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]" },
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, "the Studio failed to bundle");
  const files: StudioFile[] = [];
  for (const out of result.outputs) {
    const name = path.basename(out.path);
    const type = name.endsWith(".css") ? "text/css; charset=utf-8" : name.endsWith(".js") ? "text/javascript; charset=utf-8" : out.type;
    files.push({ name, type, text: await out.text() });
  }
  const js = files.filter((f) => f.name.endsWith(".js") && f.name.startsWith("main-"));
  const css = files.filter((f) => f.name.endsWith(".css"));
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Lorehold Studio</title>
<link rel="icon" href="data:,">
${css.map((f) => `<link rel="stylesheet" href="/studio/assets/${f.name}">`).join("\n")}
</head>
<body>
<div id="app"><noscript>Lorehold Studio needs JavaScript.</noscript></div>
${js.map((f) => `<script type="module" src="/studio/assets/${f.name}"></script>`).join("\n")}
</body>
</html>
`;
  return { html, files };
}

let loading: Promise<StudioBundle> | null = null;

/** The embedded bundle (executable) or one built once from source. */
export function studioBundle(): Promise<StudioBundle> {
  if (embeddedStudio) return Promise.resolve(embeddedStudio);
  loading ??= buildStudio().catch((e) => {
    loading = null; // a later request tries again (e.g. after fixing the source)
    throw e;
  });
  return loading;
}
