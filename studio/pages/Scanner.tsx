import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { v1 } from "../api.ts";
import { ErrorBox, fmtDate, fmtNum, StatusBadge, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { droppedFiles, prepareArchive, putWithProgress, type ManifestFile } from "./scanFiles.ts";
import { ScanReview } from "./ScanReview.tsx";
import { GroupReview } from "./GroupReview.tsx";

export function Scanner({ projectId, item }: SectionProps) {
  if (item) return <ScanJob projectId={projectId} jobId={item} />;
  return <ScanHome projectId={projectId} />;
}

function ScanHome({ projectId }: { projectId: string }) {
  const jobs = useAsync(() => v1(projectId, "GET", "/scanner/jobs"), [projectId]);
  const [prepared, setPrepared] = useState<{ zip: Uint8Array; manifest: ManifestFile[] } | null>(null);
  const [estimate, setEstimate] = useState<any>(null);
  const [diff, setDiff] = useState<any>(null);
  const [userContext, setUserContext] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  const [dragging, setDragging] = useState(false);
  const act = useAction();
  const [, go] = useLocation();
  const take = async (files: File[]) => {
    setEstimate(null);
    setDiff(null);
    const p = await act.run(() => prepareArchive(files));
    if (!p) return;
    setPrepared(p);
    const est = await act.run(() => v1(projectId, "POST", "/scanner/estimate", { files: p.manifest.map((f) => ({ filename: f.filename, sizeBytes: f.sizeBytes })) }));
    if (est) setEstimate(est);
  };
  const submit = async () => {
    if (!prepared) return;
    const ok = await act.run(async () => {
      const job = await v1(projectId, "POST", "/scanner/submit-archive", {
        files: prepared.manifest,
        totalSizeBytes: prepared.zip.length,
        ...(userContext ? { userContext } : {}),
      });
      const u = new URL(job.uploadUrl);
      setProgress(0);
      const up = await putWithProgress(u.pathname + u.search, prepared.zip, setProgress);
      if (up.status >= 300) throw new Error(`upload refused: ${up.body?.error ?? up.status}`);
      await v1(projectId, "POST", "/scanner/submit-archive/confirm", { jobId: job.jobId });
      return job.jobId as string;
    });
    setProgress(null);
    if (ok) go(`/p/${projectId}/scanner/${ok}`);
  };
  return (
    <section aria-labelledby="scan-title">
      <h1 id="scan-title">Scanner</h1>
      <div
        class={`card dropzone ${dragging ? "over" : ""}`}
        onDragOver={(e) => (e.preventDefault(), setDragging(true))}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          if (e.dataTransfer) droppedFiles(e.dataTransfer).then(take, act.setError);
        }}
      >
        <p>Drop game files or a ZIP here, or choose:</p>
        <div class="row">
          <label class="button">
            Choose a folder
            <input class="visually-hidden" type="file" data-testid="folder-input" {...({ webkitdirectory: true } as any)} multiple onChange={(e) => take([...((e.target as HTMLInputElement).files ?? [])])} />
          </label>
          <label class="button">
            Choose a ZIP
            <input class="visually-hidden" type="file" accept=".zip,application/zip" onChange={(e) => take([...((e.target as HTMLInputElement).files ?? [])])} />
          </label>
        </div>
      </div>
      <ErrorBox error={act.error} />
      {prepared && (
        <div class="card" data-testid="scan-manifest">
          <h2>
            {prepared.manifest.length} files, ZIP {fmtNum(prepared.zip.length / 1024, 1)} KB
          </h2>
          <table class="list compact">
            <thead>
              <tr>
                <th>File</th>
                <th>Size</th>
                <th>SHA-256</th>
              </tr>
            </thead>
            <tbody>
              {prepared.manifest.slice(0, 50).map((f) => (
                <tr>
                  <td>{f.relativePath}</td>
                  <td>{f.sizeBytes}</td>
                  <td>
                    <code>{f.contentHash.slice(0, 12)}…</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {estimate && (
            <p data-testid="scan-estimate">
              Estimate: <strong>{fmtNum(estimate.estimatedCredits, 4)}</strong> credits (reserved at confirm: {fmtNum(estimate.reservedCredits, 4)}; available {fmtNum(estimate.availableCredits, 4)}). {estimate.message}
            </p>
          )}
          <label class="field">
            <span class="label">What are these files? (optional context for the extractor)</span>
            <textarea rows={2} maxLength={5000} value={userContext} onInput={(e) => setUserContext((e.target as HTMLTextAreaElement).value)} />
          </label>
          <div class="row">
            <button type="button" onClick={async () => setDiff(await act.run(() => v1(projectId, "POST", "/scanner/rescan", { files: prepared.manifest.map((f) => ({ filename: f.relativePath, contentHash: f.contentHash })) })))}>
              Compare with the previous scan
            </button>
            <button type="button" class="primary" disabled={act.busy} onClick={submit}>
              Submit, upload and confirm
            </button>
          </div>
          {progress !== null && (
            <label class="field">
              <span class="label">Uploading</span>
              <progress max={1} value={progress} />
            </label>
          )}
          {diff && (
            <p data-testid="rescan-diff">
              Changed: {diff.changed.join(", ") || "none"} · Added: {diff.added.join(", ") || "none"} · Deleted: {diff.deleted.join(", ") || "none"} · Unchanged: {diff.unchanged.length}
            </p>
          )}
        </div>
      )}
      <h2>Scan jobs</h2>
      <table class="list">
        <thead>
          <tr>
            <th>Job</th>
            <th>Status</th>
            <th>Files</th>
            <th>Created</th>
            <th>Committed</th>
          </tr>
        </thead>
        <tbody>
          {jobs.data?.jobs.map((j: any) => (
            <tr>
              <td>
                <Link href={`/p/${projectId}/scanner/${j.jobId}`}>{j.jobId}</Link>
              </td>
              <td>
                <StatusBadge status={j.status} />
              </td>
              <td>
                {j.completedFiles}/{j.totalFiles}
                {j.failedFiles ? ` (${j.failedFiles} failed)` : ""}
              </td>
              <td>{fmtDate(j.createdAt)}</td>
              <td>{fmtDate(j.committedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ScanJob({ projectId, jobId }: { projectId: string; jobId: string }) {
  const job = useAsync(() => v1(projectId, "GET", `/scanner/jobs/${jobId}`), [projectId, jobId]);
  useEffect(() => {
    const s = job.data?.status;
    if (!s || s === "COMPLETED" || s === "FAILED") return;
    const t = setTimeout(() => job.reload(), 800);
    return () => clearTimeout(t);
  }, [job.data]);
  const j = job.data;
  const [mode, setMode] = useState<"groups" | "one">("groups");
  return (
    <section aria-labelledby="job-title">
      <p>
        <Link href={`/p/${projectId}/scanner`}>← Scanner</Link>
      </p>
      <h1 id="job-title">Scan {jobId}</h1>
      <ErrorBox error={job.error} />
      {j && (
        <>
          <p data-testid="job-status">
            <StatusBadge status={j.status} /> {j.completedFiles}/{j.totalFiles} files
            {j.errorMessage ? ` · ${j.errorMessage}` : ""} · estimated {fmtNum(j.estimatedCredits, 6)}, actual {fmtNum(j.actualCredits, 6)} credits
            {j.adjustmentMessage ? ` · ${j.adjustmentMessage}` : ""}
          </p>
          {j.status !== "COMPLETED" && j.status !== "FAILED" && <progress max={Math.max(1, j.totalFiles)} value={j.completedFiles} aria-label="Scan progress" />}
          {j.status === "COMPLETED" && (
            <>
              <div class="tabs" role="tablist" aria-label="Review mode">
                <button type="button" role="tab" aria-selected={mode === "groups"} onClick={() => setMode("groups")}>
                  By group
                </button>
                <button type="button" role="tab" aria-selected={mode === "one"} onClick={() => setMode("one")}>
                  One by one
                </button>
              </div>
              {mode === "groups" ? (
                <GroupReview projectId={projectId} jobId={jobId} onCommitted={job.reload} />
              ) : (
                <ScanReview projectId={projectId} jobId={jobId} onCommitted={job.reload} />
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}
