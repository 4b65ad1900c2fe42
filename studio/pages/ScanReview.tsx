import { useState } from "preact/hooks";
import { admin, v1 } from "../api.ts";
import { ErrorBox, Field, fmtNum, useAction, useAsync } from "../components/ui.tsx";

/** Review a completed scan: filter, group, read, edit, then commit the chosen extractions (or approve a whole filter). */
export function ScanReview({ projectId, jobId, onCommitted }: { projectId: string; jobId: string; onCommitted: () => void }) {
  const [filter, setFilter] = useState({ minConfidence: "", tag: "", format: "", search: "", sourceFile: "" });
  const [group, setGroup] = useState<"none" | "file" | "title">("none");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [editing, setEditing] = useState<any>(null);
  const [result, setResult] = useState<any>(null);
  const qs = new URLSearchParams({ limit: "200" });
  for (const [k, v] of Object.entries(filter)) if (v) qs.set(k, v);
  const list = useAsync(() => admin("GET", `/projects/${projectId}/scan-jobs/${jobId}/extractions?${qs}`), [projectId, jobId, qs.toString()]);
  const act = useAction();
  const items: any[] = list.data?.extractions ?? [];
  const toggle = (id: string) => {
    const s = new Set(selected);
    s.has(id) ? s.delete(id) : s.add(id);
    setSelected(s);
  };
  const setF = (k: keyof typeof filter) => (e: Event) => setFilter({ ...filter, [k]: (e.target as HTMLInputElement).value });
  const commit = async () => {
    const r = await act.run(() => v1(projectId, "POST", "/scanner/commit", { jobId, extractionIds: [...selected] }));
    if (r) {
      setResult(r);
      setSelected(new Set());
      list.reload();
      onCommitted();
    }
  };
  const approveAll = async () => {
    const body: any = {};
    if (filter.minConfidence) body.minConfidence = Number(filter.minConfidence);
    for (const k of ["tag", "format", "search", "sourceFile"] as const) if (filter[k]) body[k] = filter[k];
    const r = await act.run(() => admin("POST", `/projects/${projectId}/scan-jobs/${jobId}/approve`, body));
    if (r) {
      setResult(r);
      list.reload();
      onCommitted();
    }
  };
  const saveEdit = async (e: Event) => {
    e.preventDefault();
    const body = { title: editing.title, tags: editing.tagsText.split(",").map((t: string) => t.trim()).filter(Boolean), location: editing.location || null };
    if (await act.run(() => admin("PATCH", `/projects/${projectId}/scan-jobs/${jobId}/extractions/${editing.id}`, body))) {
      setEditing(null);
      list.reload();
    }
  };
  const groups: [string, any[]][] =
    group === "file"
      ? (list.data?.groups.bySourceFile ?? []).map((g: any) => [g.name, items.filter((x) => x.sourceFiles.includes(g.name))])
      : group === "title"
        ? [...new Set(items.map((x) => x.title))].map((t) => [t, items.filter((x) => x.title === t)] as [string, any[]])
        : [["", items]];
  const row = (x: any) => (
    <article class={`extraction ${x.documentId ? "committed" : ""}`} data-testid="extraction">
      <div class="row">
        <input type="checkbox" aria-label={`Select ${x.title}`} checked={selected.has(x.id)} disabled={!!x.documentId} onChange={() => toggle(x.id)} />
        <strong class="grow">{x.title}</strong>
        {typeof x.review?.kind === "string" && <span class="badge">{x.review.kind}</span>}
        <span class="badge">{fmtNum(x.confidence, 2)}</span>
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
      <details>
        <summary>Full text</summary>
        <pre>{x.content}</pre>
      </details>
    </article>
  );
  return (
    <section aria-labelledby="review-title">
      <h2 id="review-title">Review ({list.data?.total ?? 0} extractions)</h2>
      <div class="row wrap filters" role="search">
        <Field label="Min confidence">
          <input type="number" min={0} max={1} step={0.05} value={filter.minConfidence} onInput={setF("minConfidence")} />
        </Field>
        <Field label="Tag">
          <select value={filter.tag} onChange={setF("tag")}>
            <option value="">any</option>
            {list.data?.facets.tags.map((t: any) => (
              <option value={t.name}>
                {t.name} ({t.count})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Format">
          <select value={filter.format} onChange={setF("format")}>
            <option value="">any</option>
            {list.data?.facets.formats.map((t: any) => (
              <option value={t.name}>
                {t.name} ({t.count})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Search">
          <input type="search" value={filter.search} onChange={setF("search")} />
        </Field>
        <Field label="Group by">
          <select value={group} onChange={(e) => setGroup((e.target as HTMLSelectElement).value as any)}>
            <option value="none">nothing</option>
            <option value="file">source file</option>
            <option value="title">title</option>
          </select>
        </Field>
      </div>
      <div class="row">
        <button type="button" onClick={() => setSelected(new Set(items.filter((x) => !x.documentId).map((x) => x.id)))}>
          Select all shown
        </button>
        <button type="button" class="primary" disabled={selected.size === 0 || act.busy} onClick={commit}>
          Commit {selected.size} selected
        </button>
        <button type="button" disabled={act.busy} onClick={approveAll}>
          Approve everything matching the filter
        </button>
      </div>
      <ErrorBox error={act.error ?? list.error} />
      {result && (
        <p class="card ok" role="status" data-testid="commit-result">
          Committed {result.committed} new document(s); {result.documentIds.length} in all. They are indexing now (see Lore).
        </p>
      )}
      {groups.map(([name, xs]) => (
        <div class="group">
          {name && (
            <h3>
              {name} ({xs.length})
            </h3>
          )}
          {xs.map(row)}
        </div>
      ))}
      {editing && (
        <form class="card" onSubmit={saveEdit} aria-label="Edit extraction">
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
      <h3>Skipped content</h3>
      <ul>
        {(list.data?.skippedContent ?? []).map((s: any) => (
          <li>
            {s.sourceFile} · {s.section}: {s.reason}
          </li>
        ))}
        {(list.data?.skippedContent ?? []).length === 0 && <li class="muted">nothing skipped</li>}
      </ul>
    </section>
  );
}
