import { buildZip, sha256Hex, toBytes, type ZipEntrySpec } from "../../support/zipBuilder.ts";
import { createTestApp, type TestApp } from "../../support/testApp.ts";
import { buildWorld, type World } from "../../support/world.ts";

export interface ScanFixture {
  t: TestApp;
  w: World;
  /** a second project with its own editor key (cross-project checks) */
  other: World;
  close(): Promise<void>;
}

export async function scanFixture(): Promise<ScanFixture> {
  const t = await createTestApp();
  const w = buildWorld(t.app.ctx as never, "Thornhaven", { index: "none" });
  const other = buildWorld(t.app.ctx as never, "Elsewhere", { index: "none" });
  return { t, w, other, close: () => t.close() };
}

export interface FileSpec {
  path: string;
  data: string | Uint8Array;
}

/** The manifest lines a studio would send for these files. */
export function manifestOf(files: FileSpec[]) {
  return files.map((f) => {
    const bytes = toBytes(f.data);
    return { filename: f.path.slice(f.path.lastIndexOf("/") + 1), relativePath: f.path, sizeBytes: bytes.length, contentHash: sha256Hex(bytes) };
  });
}

export function zipOf(files: (FileSpec & Partial<ZipEntrySpec>)[]): Uint8Array {
  return buildZip(files.map((f) => ({ ...f, path: f.path, data: f.data })));
}

/** PUT to an uploadUrl in process (the URL's host is the server's public one). */
export async function put(t: TestApp, uploadUrl: string, body: Uint8Array | ReadableStream<Uint8Array> | null, headers: Record<string, string> = { "content-type": "application/zip" }) {
  const u = new URL(uploadUrl);
  const res = await t.app.handle(
    new Request(`http://localhost${u.pathname}${u.search}`, { method: "PUT", headers, body, duplex: "half" } as RequestInit),
  );
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

/** submit-archive → upload → (optionally) confirm, asserting each step; returns the job id and the submit answer. */
export async function submitAndUpload(
  f: ScanFixture,
  files: FileSpec[],
  opts: { zip?: Uint8Array; manifest?: ReturnType<typeof manifestOf>; userContext?: string; confirm?: boolean; key?: string } = {},
) {
  const zip = opts.zip ?? zipOf(files);
  const key = opts.key ?? f.w.keys.editor;
  const submit = await f.t.call("POST", "/v1/scanner/submit-archive", {
    key,
    body: { files: opts.manifest ?? manifestOf(files), totalSizeBytes: zip.length, ...(opts.userContext ? { userContext: opts.userContext } : {}) },
  });
  if (submit.status !== 202) throw new Error(`submit failed: ${submit.status} ${JSON.stringify(submit.body)}`);
  const up = await put(f.t, submit.body.uploadUrl, zip);
  if (up.status !== 200) throw new Error(`upload failed: ${up.status} ${JSON.stringify(up.body)}`);
  if (opts.confirm !== false) {
    const c = await f.t.call("POST", "/v1/scanner/submit-archive/confirm", { key, body: { jobId: submit.body.jobId } });
    if (c.status !== 200) throw new Error(`confirm failed: ${c.status} ${JSON.stringify(c.body)}`);
  }
  return { jobId: submit.body.jobId as string, submit: submit.body };
}

export async function runWorker(f: ScanFixture) {
  return (await f.t.app.scheduler.trigger("scan-worker"))!;
}

/** A fresh fixture with one archive of `files` scanned to COMPLETED (the setup of the review tests). */
export async function completedScan(files: FileSpec[]): Promise<{ f: ScanFixture; jobId: string }> {
  const f = await scanFixture();
  const { jobId } = await submitAndUpload(f, files);
  await runWorker(f);
  const status = (await job(f, jobId)).body.status;
  if (status !== "COMPLETED") throw new Error(`the scan ended ${status}`);
  return { f, jobId };
}

/** A small project to review by group: a character across two files, a place, and a scene with two speakers. */
export const TAVERN_FILES: FileSpec[] = [
  { path: "lore/characters/garrick.md", data: "# Garrick\n\nGarrick has kept the Rusty Tankard for thirty years and knows every traveller by name.\n" },
  { path: "data/characters.json", data: JSON.stringify([{ name: "Garrick", description: "Innkeeper of the Rusty Tankard; once a soldier of the river wars." }]) },
  { path: "dialogue/tavern.yarn", data: "title: Tavern\n---\nGarrick: Welcome to the Rusty Tankard, traveller!\nMira: A pint, and what the Smugglers say at the Docks.\nGarrick: Keep your voice down.\n===\n" },
  { path: "lore/places/docks.md", data: "# The Docks\n\nAt the Docks the smugglers unload their crates after midnight, when the river fog hides the lanterns.\n" },
];

export async function job(f: ScanFixture, jobId: string, key = f.w.keys.editor) {
  return f.t.call("GET", `/v1/scanner/jobs/${jobId}`, { key });
}

export const LORE = {
  md: "# The Founding of Thornhaven\n\nThornhaven was founded by river traders in the year of the long frost. The Rusty Tankard was its first building and still stands by the docks.\n",
  txt: "The old mill on the river bend has been abandoned for thirty years, ever since the miller's family vanished one night without a trace.\n",
};
