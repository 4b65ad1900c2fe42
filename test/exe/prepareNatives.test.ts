/**
 * Fast tier for src/runtime: finding, extracting and checking the native
 * folder, with a fake bundle of small files on disk standing in for the
 * files a compiled executable embeds. The real thing: build.test.ts.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { hashNativeFile } from "../../src/runtime/hashNativeFile.ts";
import type { NativeBundle } from "../../src/runtime/nativeContract.ts";
import { NativeDirError } from "../../src/runtime/NativeDirError.ts";
import { prepareNatives } from "../../src/runtime/prepareNatives.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "lorehold-natives-test-"));
let work = "";
let bundle: NativeBundle;
let n = 0;

function fakeBundle(dir: string): NativeBundle {
  const sources = path.join(dir, "embedded");
  fs.mkdirSync(sources, { recursive: true });
  const file = (rel: string, content: string, executable: boolean) => {
    const embedded = path.join(sources, rel.replaceAll("/", "_"));
    fs.writeFileSync(embedded, content);
    const bytes = new TextEncoder().encode(content);
    return { path: rel, size: bytes.length, xxh3: hashNativeFile(bytes), embedded, executable };
  };
  return {
    version: "9.9.9",
    id: "abcdef012345",
    target: "bun-linux-x64",
    mode: "embed",
    llamaBuildFolder: "linux-x64",
    llamaPackageVersion: "3.22.1",
    files: [
      file("llama/linux-x64/llama-addon.node", "addon ".repeat(1000), true),
      file("llama/linux-x64/libllama.so", "llama ".repeat(5000), true),
      file("onnxruntime/onnxruntime_binding.node", "ort ".repeat(100), true),
      file("node-llama-cpp/package.json", '{"version":"3.22.1"}', false),
    ],
  };
}

/** An env with every location under this test's folder; `execPath` has no native/ beside it. */
function setup(env: Record<string, string> = {}) {
  return {
    execPath: path.join(work, "bin", "lorehold"),
    env: { HOME: path.join(work, "home"), TMPDIR: path.join(work, "tmp"), ...env },
  };
}

beforeEach(() => {
  work = path.join(root, String(++n));
  fs.mkdirSync(path.join(work, "bin"), { recursive: true });
  fs.mkdirSync(path.join(work, "tmp"), { recursive: true });
  bundle = fakeBundle(work);
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("prepareNatives", () => {
  test("extracts once into ~/.cache/lorehold/native-<version>-<id>, then reuses it", () => {
    const first = prepareNatives(bundle, setup());
    expect(first).toMatchObject({
      source: "cache",
      dir: path.join(work, "home", ".cache", "lorehold", "native-9.9.9-abcdef012345"),
      extracted: true,
      extractReason: "not extracted yet",
      skipped: [],
    });
    expect(fs.readFileSync(path.join(first.dir, "llama/linux-x64/libllama.so"), "utf8")).toBe("llama ".repeat(5000));
    expect(fs.statSync(path.join(first.dir, "llama/linux-x64/llama-addon.node")).mode & 0o111).not.toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(first.dir, "manifest.json"), "utf8")).bundleId).toBe("abcdef012345");
    expect(fs.readdirSync(path.dirname(first.dir))).toEqual(["native-9.9.9-abcdef012345"]); // no temp leftovers

    expect(prepareNatives(bundle, setup())).toMatchObject({ dir: first.dir, extracted: false, extractReason: null });
  });

  test("prefers XDG_CACHE_HOME, and LOREHOLD_NATIVE_DIR over everything", () => {
    const xdg = prepareNatives(bundle, setup({ XDG_CACHE_HOME: path.join(work, "xdg") }));
    expect(xdg.dir).toBe(path.join(work, "xdg", "lorehold", "native-9.9.9-abcdef012345"));
    const explicit = prepareNatives(bundle, setup({ XDG_CACHE_HOME: path.join(work, "xdg"), LOREHOLD_NATIVE_DIR: path.join(work, "mine") }));
    expect(explicit.dir).toBe(path.join(work, "mine", "native-9.9.9-abcdef012345"));
  });

  test("re-extracts a corrupted, truncated or incomplete folder and says why", () => {
    const { dir } = prepareNatives(bundle, setup());
    const lib = path.join(dir, "llama/linux-x64/libllama.so");

    fs.writeFileSync(lib, "LLAMA ".repeat(5000)); // same size, other bytes
    expect(prepareNatives(bundle, setup()).extractReason).toBe("llama/linux-x64/libllama.so is corrupted (checksum mismatch)");

    fs.truncateSync(lib, 10);
    expect(prepareNatives(bundle, setup()).extractReason).toBe("llama/linux-x64/libllama.so has 10 bytes, expected 30000");

    fs.rmSync(path.join(dir, "manifest.json"));
    expect(prepareNatives(bundle, setup()).extractReason).toBe("incomplete (no manifest.json)");

    fs.rmSync(lib);
    expect(prepareNatives(bundle, setup()).extractReason).toBe("llama/linux-x64/libllama.so is missing");

    expect(prepareNatives(bundle, setup())).toMatchObject({ extracted: false });
    expect(fs.readFileSync(lib, "utf8")).toBe("llama ".repeat(5000));
  });

  test("a folder from another build is replaced", () => {
    const { dir } = prepareNatives(bundle, setup());
    const manifest = path.join(dir, "manifest.json");
    fs.writeFileSync(manifest, JSON.stringify({ ...JSON.parse(fs.readFileSync(manifest, "utf8")), bundleId: "000000000000" }));
    expect(prepareNatives(bundle, setup()).extractReason).toBe("holds bundle 000000000000, this executable carries abcdef012345");
  });

  test("passes over an unusable cache location to the next one and reports it", () => {
    const blocker = path.join(work, "a-file");
    fs.writeFileSync(blocker, "");
    const prepared = prepareNatives(bundle, setup({ HOME: blocker }));
    expect(prepared.dir).toStartWith(path.join(work, "tmp", `lorehold-${process.getuid!()}`));
    expect(prepared.skipped).toHaveLength(1);
    expect(prepared.skipped[0]!.problem).toStartWith("HOME: ");
  });

  test("refuses a shared temp folder others can write to", () => {
    const base = path.join(work, "tmp", `lorehold-${process.getuid!()}`);
    fs.mkdirSync(base);
    fs.chmodSync(base, 0o777);
    const blocker = path.join(work, "a-file");
    fs.writeFileSync(blocker, "");
    const error = captureError(() => prepareNatives(bundle, setup({ HOME: blocker })));
    expect(error).toBeInstanceOf(NativeDirError);
    expect(error.message).toContain("TMPDIR: it is writable by other users");
  });

  test("an unusable LOREHOLD_NATIVE_DIR is an error naming it, with no fallback", () => {
    const blocker = path.join(work, "a-file");
    fs.writeFileSync(blocker, "");
    const error = captureError(() => prepareNatives(bundle, setup({ LOREHOLD_NATIVE_DIR: path.join(blocker, "natives") })));
    expect(error).toBeInstanceOf(NativeDirError);
    expect(error.message).toContain(`${path.join(blocker, "natives")}/native-9.9.9-abcdef012345: LOREHOLD_NATIVE_DIR:`);
    expect(error.message).toContain("Set LOREHOLD_NATIVE_DIR to a writable directory");
    expect((error as NativeDirError).attempts).toHaveLength(1);
  });

  test("a damaged executable is reported, not cached", () => {
    fs.appendFileSync(bundle.files[1]!.embedded, "garbage");
    const error = captureError(() => prepareNatives(bundle, setup()));
    expect(error).toBeInstanceOf(NativeDirError);
    expect(error.message).toStartWith("The copy of llama/linux-x64/libllama.so embedded in this executable is damaged");
    expect(fs.existsSync(path.join(work, "home", ".cache", "lorehold", "native-9.9.9-abcdef012345"))).toBe(false);
  });

  test("uses a native/ folder beside the executable in place", () => {
    const extracted = prepareNatives(bundle, setup({ LOREHOLD_NATIVE_DIR: path.join(work, "x") })).dir;
    fs.cpSync(extracted, path.join(work, "bin", "native"), { recursive: true });
    expect(prepareNatives(bundle, setup())).toMatchObject({ source: "beside", dir: path.join(work, "bin", "native"), extracted: false });
    expect(fs.existsSync(path.join(work, "home", ".cache"))).toBe(false);

    fs.rmSync(path.join(work, "bin", "native", "node-llama-cpp", "package.json"));
    expect(captureError(() => prepareNatives(bundle, setup())).message).toContain("is incomplete (missing node-llama-cpp/package.json)");
  });

  test("a --natives beside build without its native/ folder says what to copy", () => {
    const error = captureError(() => prepareNatives({ ...bundle, mode: "beside" }, setup()));
    expect(error.message).toContain("built with --natives beside");
  });
});

function captureError(run: () => unknown): Error {
  try {
    run();
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected an error");
}
