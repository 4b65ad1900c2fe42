import { unzipSync, zipSync } from "fflate";

export interface ManifestFile {
  filename: string;
  relativePath: string;
  sizeBytes: number;
  contentHash: string;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const baseName = (p: string) => p.split("/").pop() || p;

/**
 * A folder (or loose files) → the ZIP the scanner takes, built here in the
 * browser, and its manifest (SHA-256 of each file via WebCrypto). A ZIP
 * given as is → its manifest from its entries.
 */
export async function prepareArchive(files: File[]): Promise<{ zip: Uint8Array; manifest: ManifestFile[] }> {
  if (files.length === 1 && files[0].name.toLowerCase().endsWith(".zip")) {
    const zip = new Uint8Array(await files[0].arrayBuffer());
    const entries = unzipSync(zip);
    const manifest: ManifestFile[] = [];
    for (const [path, data] of Object.entries(entries)) {
      if (path.endsWith("/")) continue;
      manifest.push({ filename: baseName(path), relativePath: path, sizeBytes: data.length, contentHash: await sha256(data) });
    }
    return { zip, manifest };
  }
  const tree: Record<string, Uint8Array> = {};
  const manifest: ManifestFile[] = [];
  for (const f of files) {
    // webkitRelativePath is "folder/sub/file"; drop the chosen folder's own name.
    const rel = ((f as any).webkitRelativePath || f.name).split("/");
    const path = (rel.length > 1 ? rel.slice(1) : rel).join("/");
    const data = new Uint8Array(await f.arrayBuffer());
    tree[path] = data;
    manifest.push({ filename: baseName(path), relativePath: path, sizeBytes: data.length, contentHash: await sha256(data) });
  }
  return { zip: zipSync(tree, { level: 6 }), manifest };
}

/** PUT with upload progress (fetch has none). */
export function putWithProgress(url: string, body: Uint8Array, onProgress: (fraction: number) => void): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("content-type", "application/zip");
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(e.loaded / e.total);
    xhr.onload = () => {
      let parsed: any = null;
      try {
        parsed = JSON.parse(xhr.responseText);
      } catch {}
      resolve({ status: xhr.status, body: parsed });
    };
    xhr.onerror = () => reject(new Error("upload failed (network)"));
    xhr.send(new Blob([body as BlobPart], { type: "application/zip" }));
  });
}

/**
 * The files of a drop: a dropped folder arrives as one entry, read here
 * recursively (webkitGetAsEntry) with paths like a chosen folder's.
 */
export async function droppedFiles(dt: DataTransfer): Promise<File[]> {
  const entries = [...dt.items].map((i) => i.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  if (!entries.some((e) => e.isDirectory)) return [...dt.files];
  const out: File[] = [];
  const walk = async (entry: FileSystemEntry, path: string): Promise<void> => {
    if (entry.isFile) {
      const file = await new Promise<File>((res, rej) => (entry as FileSystemFileEntry).file(res, rej));
      Object.defineProperty(file, "webkitRelativePath", { value: path + entry.name });
      out.push(file);
      return;
    }
    const reader = (entry as FileSystemDirectoryEntry).createReader();
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((res, rej) => reader.readEntries(res, rej));
      if (batch.length === 0) break;
      for (const e of batch) await walk(e, `${path}${entry.name}/`);
    }
  };
  for (const e of entries) await walk(e, "");
  return out;
}
