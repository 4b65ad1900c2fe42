import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, fmtNum, Loading, useAsync } from "../components/ui.tsx";
import { ExtractionCard } from "../components/ExtractionCard.tsx";
import type { Selection } from "./reviewState.ts";

/** What a group's state says to a reviewer: still open, partly or wholly accepted, rejected. */
function stateOf(g: any): { label: string; cls: string } {
  if (g.hidden) return { label: "rejected", cls: "s-failed" };
  if (g.committedCount >= g.count - g.hiddenCount) return { label: "accepted", cls: "s-completed" };
  if (g.committedCount > 0) return { label: `${g.committedCount} of ${g.count} accepted`, cls: "s-processing" };
  return { label: "open", cls: "s-pending" };
}

/** The extractions of one group, loaded when the group is opened. */
function GroupExtractions({ projectId, jobId, group, onChanged }: { projectId: string; jobId: string; group: string; onChanged: () => void }) {
  const list = useAsync(
    () => admin("GET", `/projects/${projectId}/scan-jobs/${jobId}/extractions?limit=500&group=${encodeURIComponent(group)}`),
    [projectId, jobId, group],
  );
  if (list.loading && !list.data) return <Loading what="Loading the group" />;
  return (
    <div class="group-body">
      <ErrorBox error={list.error} />
      {(list.data?.extractions ?? []).map((x: any) => (
        <ExtractionCard
          projectId={projectId}
          jobId={jobId}
          x={x}
          onSaved={() => {
            list.reload();
            onChanged();
          }}
        />
      ))}
    </div>
  );
}

/**
 * One group (an entity across files, or a scene): a header with kind, count, confidence, files,
 * speakers and translations; Accept / Reject for the whole group; opened, its extractions. A
 * rejected group shows only its counts.
 */
export function GroupRow(props: {
  projectId: string;
  jobId: string;
  g: any;
  rejected: Selection;
  busy: boolean;
  onAccept: () => void;
  onReject: () => void;
  onRestore: () => void;
  onChanged: () => void;
}) {
  const { g, rejected } = props;
  const [open, setOpen] = useState(false);
  const st = stateOf(g);
  const bodyId = `group-${g.group.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (g.hidden) {
    const byGroup = rejected.groups.includes(g.group);
    return (
      <article class="group-row hidden" data-testid="group" aria-label={`${g.title} (rejected)`}>
        <div class="row">
          <span class="grow">
            <span class={`badge ${st.cls}`}>{st.label}</span> {g.title} <span class="muted">· {g.count} extraction(s)</span>
          </span>
          {byGroup ? (
            <button type="button" class="small" onClick={props.onRestore}>
              Restore
            </button>
          ) : (
            <span class="muted small">rejected with its kind, folder or file</span>
          )}
        </div>
      </article>
    );
  }
  const done = st.label === "accepted";
  return (
    <article class={`group-row ${done ? "done" : ""}`} data-testid="group" aria-label={g.title}>
      <div class="row">
        <button type="button" class="small" aria-expanded={open} aria-controls={bodyId} aria-label={`${open ? "Close" : "Open"} ${g.title}`} onClick={() => setOpen(!open)}>
          {open ? "▾" : "▸"}
        </button>
        <strong class="grow">{g.title}</strong>
        <span class={`badge kind-${g.kind}`}>{g.kind}</span>
        <span class="badge" title="extractions in the group">
          {g.count} {g.count === 1 ? "extraction" : "extractions"}
        </span>
        <span class="badge" title="highest confidence in the group">
          conf. {fmtNum(g.confidence, 2)}
        </span>
        <span class={`badge ${st.cls}`}>{st.label}</span>
        <button type="button" class="small primary" disabled={props.busy || done} onClick={props.onAccept}>
          Accept
        </button>
        <button type="button" class="small" disabled={props.busy} onClick={props.onReject}>
          Reject
        </button>
      </div>
      <p class="muted">
        {g.sourceFiles.slice(0, 3).join(", ")}
        {g.sourceFiles.length > 3 ? ` and ${g.sourceFiles.length - 3} more` : ""}
        {g.speakers.length > 0 && ` · speakers: ${g.speakers.join(", ")}`}
        {g.languages.length > 0 && ` · translations: ${g.languages.join(", ")}`}
        {g.hiddenCount > 0 && ` · ${g.hiddenCount} rejected`}
      </p>
      <div id={bodyId}>{open && <GroupExtractions projectId={props.projectId} jobId={props.jobId} group={g.group} onChanged={props.onChanged} />}</div>
    </article>
  );
}
