import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, Field, fmtNum, useAction } from "./ui.tsx";

/** What the scanner knows of one candidate (issue 12): kind, why each tag and the location matched, speakers, translations. */
export function ExtractionFacts({ x }: { x: any }) {
  const reasons = Object.entries((x.reasons ?? {}) as Record<string, string>);
  return (
    <>
      {reasons.length > 0 && (
        <ul class="plain reasons" aria-label="Why these tags and location matched" data-testid="reasons">
          {reasons.map(([what, why]) => (
            <li>
              <span class="badge">{what}</span> {why}
            </li>
          ))}
        </ul>
      )}
      {x.speakers?.length > 0 && (
        <p data-testid="speakers">
          Speakers: <strong>{x.speakers.join(", ")}</strong>
        </p>
      )}
      {x.variants?.length > 0 && (
        <p data-testid="variants">
          Translations:{" "}
          {x.variants.map((v: any, i: number) => (
            <span>
              {i > 0 && ", "}
              <span class="badge">{v.language}</span>
              <code>{v.sourceFile}</code>
            </span>
          ))}
        </p>
      )}
    </>
  );
}

/** One candidate: title, kind, confidence, tags, location, files, what the scanner knows, full text; edit before commit. */
export function ExtractionCard({ projectId, jobId, x, selected, onToggle, onSaved }: { projectId: string; jobId: string; x: any; selected?: boolean; onToggle?: () => void; onSaved: () => void }) {
  const [editing, setEditing] = useState<any>(null);
  const act = useAction();
  const save = async (e: Event) => {
    e.preventDefault();
    const body = { title: editing.title, tags: editing.tagsText.split(",").map((t: string) => t.trim()).filter(Boolean), location: editing.location || null };
    if (await act.run(() => admin("PATCH", `/projects/${projectId}/scan-jobs/${jobId}/extractions/${x.id}`, body))) {
      setEditing(null);
      onSaved();
    }
  };
  return (
    <article class={`extraction ${x.documentId ? "committed" : ""}`} data-testid="extraction">
      <div class="row">
        {onToggle && <input type="checkbox" aria-label={`Select ${x.title}`} checked={selected} disabled={!!x.documentId} onChange={onToggle} />}
        <strong class="grow">{x.title}</strong>
        <span class={`badge kind-${x.kind}`}>{x.kind}</span>
        <span class="badge" title="confidence">{fmtNum(x.confidence, 2)}</span>
        {x.documentId ? (
          <span class="badge s-completed">committed</span>
        ) : (
          <button type="button" class="small" onClick={() => setEditing({ ...x, tagsText: x.tags.join(", ") })}>
            Edit
          </button>
        )}
      </div>
      <p class="muted">
        {x.tags.join(", ") || "no tags"} · {x.location ?? "no location"} · {x.sourceFiles.join(", ")}
      </p>
      <ExtractionFacts x={x} />
      <details>
        <summary>Full text</summary>
        <pre>{x.content}</pre>
      </details>
      {editing && (
        <form class="card" onSubmit={save} aria-label="Edit extraction">
          <h3>Edit before commit</h3>
          <Field label="Title">
            <input required maxLength={200} value={editing.title} onInput={(e) => setEditing({ ...editing, title: (e.target as HTMLInputElement).value })} />
          </Field>
          <Field label="Tags (comma separated)">
            <input value={editing.tagsText} onInput={(e) => setEditing({ ...editing, tagsText: (e.target as HTMLInputElement).value })} />
          </Field>
          <Field label="Location">
            <input value={editing.location ?? ""} onInput={(e) => setEditing({ ...editing, location: (e.target as HTMLInputElement).value })} />
          </Field>
          <ErrorBox error={act.error} />
          <div class="row">
            <button type="submit" class="primary">
              Save extraction
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </article>
  );
}
