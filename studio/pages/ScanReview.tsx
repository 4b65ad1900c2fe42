import { useState } from "preact/hooks";
import { admin, v1 } from "../api.ts";
import { ErrorBox, Field, useAction, useAsync } from "../components/ui.tsx";
import { ExtractionCard } from "../components/ExtractionCard.tsx";

/** Review a completed scan one candidate at a time: filter, group, read, edit, then commit the chosen extractions (or approve a whole filter). */
export function ScanReview({ projectId, jobId, onCommitted }: { projectId: string; jobId: string; onCommitted: () => void }) {
  const [filter, setFilter] = useState({ minConfidence: "", tag: "", format: "", kind: "", search: "", sourceFile: "" });
  const [group, setGroup] = useState<"none" | "file" | "title">("none");
  const [selected, setSelected] = useState<Set<string>>(new Set());
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
    for (const k of ["tag", "format", "kind", "search", "sourceFile"] as const) if (filter[k]) body[k] = filter[k];
    const r = await act.run(() => admin("POST", `/projects/${projectId}/scan-jobs/${jobId}/approve`, body));
    if (r) {
      setResult(r);
      list.reload();
      onCommitted();
    }
  };
  const groups: [string, any[]][] =
    group === "file"
      ? (list.data?.groups.bySourceFile ?? []).map((g: any) => [g.name, items.filter((x) => x.sourceFiles.includes(g.name))])
      : group === "title"
        ? [...new Set(items.map((x) => x.title))].map((t) => [t, items.filter((x) => x.title === t)] as [string, any[]])
        : [["", items]];
  const row = (x: any) => <ExtractionCard projectId={projectId} jobId={jobId} x={x} selected={selected.has(x.id)} onToggle={() => toggle(x.id)} onSaved={list.reload} />;
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
        <Field label="Kind">
          <select value={filter.kind} onChange={setF("kind")}>
            <option value="">any</option>
            {(list.data?.facets.kinds ?? []).map((t: any) => (
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
