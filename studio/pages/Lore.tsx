import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { admin, v1 } from "../api.ts";
import { Markdown } from "../components/Markdown.tsx";
import { Confirm, ErrorBox, Field, fmtDate, Loading, StatusBadge, TagPicker, useAction, useAsync } from "../components/ui.tsx";
import { ConditionInput } from "../components/conditions.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

const PAGE = 20;

export function Lore({ projectId, item }: SectionProps) {
  if (item) return <DocumentEditor projectId={projectId} docId={item} />;
  return <DocumentList projectId={projectId} />;
}

function DocumentList({ projectId }: { projectId: string }) {
  const [status, setStatus] = useState("");
  const [tag, setTag] = useState("");
  const [search, setSearch] = useState("");
  const [offset, setOffset] = useState(0);
  const tags = useAsync(() => admin<{ tags: { name: string }[] }>("GET", `/projects/${projectId}/tags`), [projectId]);
  const qs = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
  if (status) qs.set("status", status);
  if (tag) qs.set("tag", tag);
  if (search) qs.set("search", search);
  const docs = useAsync(() => v1(projectId, "GET", `/lore/documents?${qs}`), [projectId, qs.toString()]);
  // Live status while anything is still being indexed.
  useEffect(() => {
    const busy = docs.data?.documents.some((d: any) => d.status === "PENDING" || d.status === "PROCESSING");
    if (!busy) return;
    const t = setTimeout(() => docs.reload(), 1000);
    return () => clearTimeout(t);
  }, [docs.data]);
  const p = docs.data?.pagination;
  return (
    <section aria-labelledby="lore-title">
      <div class="row">
        <h1 id="lore-title" class="grow">
          Lore documents
        </h1>
        <Link href={`/p/${projectId}/lore/new`} class="button primary">
          New document
        </Link>
      </div>
      <div class="row filters" role="search">
        <Field label="Status">
          <select value={status} onChange={(e) => (setStatus((e.target as HTMLSelectElement).value), setOffset(0))}>
            <option value="">any</option>
            {["PENDING", "PROCESSING", "COMPLETED", "FAILED"].map((s) => (
              <option value={s}>{s}</option>
            ))}
          </select>
        </Field>
        <Field label="Tag">
          <select value={tag} onChange={(e) => (setTag((e.target as HTMLSelectElement).value), setOffset(0))}>
            <option value="">any</option>
            {tags.data?.tags.map((t) => (
              <option value={t.name}>{t.name}</option>
            ))}
          </select>
        </Field>
        <Field label="Search">
          <input type="search" value={search} onChange={(e) => (setSearch((e.target as HTMLInputElement).value), setOffset(0))} placeholder="words in name or text" />
        </Field>
      </div>
      <ErrorBox error={docs.error} />
      {!docs.data && <Loading />}
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th>Tags</th>
            <th>Chunks</th>
            <th>Updated</th>
          </tr>
        </thead>
        <tbody>
          {docs.data?.documents.map((d: any) => (
            <tr>
              <td>
                <Link href={`/p/${projectId}/lore/${d.id}`}>{d.name}</Link>
              </td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>{d.tags.map((t: any) => t.name).join(", ")}</td>
              <td>{d.chunkCount}</td>
              <td>{fmtDate(d.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {p && (
        <div class="row pager">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <span>
            {p.total === 0 ? "No documents" : `${p.offset + 1}–${Math.min(p.offset + p.limit, p.total)} of ${p.total}`}
          </span>
          <button type="button" disabled={!p.hasMore} onClick={() => setOffset(offset + PAGE)}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}

function DocumentEditor({ projectId, docId }: { projectId: string; docId: string }) {
  const isNew = docId === "new";
  const [, go] = useLocation();
  const [f, setF] = useState({ name: "", content: "", tags: [] as string[], locationId: "", when: "", sticky: "", cooldown: "", delay: "" });
  const [doc, setDoc] = useState<any>(null);
  const [tab, setTab] = useState<"write" | "preview">("write");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const tags = useAsync(() => admin<{ tags: { name: string }[] }>("GET", `/projects/${projectId}/tags`), [projectId]);
  const locations = useAsync(() => admin<{ locations: { id: string; name: string }[] }>("GET", `/projects/${projectId}/locations`), [projectId]);
  const act = useAction();
  const fetchDoc = async (fill: boolean) => {
    const r = await v1(projectId, "GET", `/lore/documents/${docId}`);
    setDoc(r.document);
    if (!fill) return;
    // when and the timers are the admin API's (the spec's document has no such fields)
    const g = await admin("GET", `/projects/${projectId}/documents/${docId}`);
    const num = (v: number | null | undefined) => (v == null ? "" : String(v));
    setF({
      name: r.document.name,
      content: r.document.content,
      tags: r.document.tags.map((t: any) => t.name),
      locationId: r.document.location?.id ?? "",
      when: g.when ?? "",
      sticky: num(g.sticky),
      cooldown: num(g.cooldown),
      delay: num(g.delay),
    });
  };
  useEffect(() => {
    if (!isNew) act.run(() => fetchDoc(true));
  }, [docId]);
  // The indexer runs in the background: follow the status until it settles.
  const [index, setIndex] = useState<{ status: string; errorMessage: string | null } | null>(null);
  useEffect(() => {
    if (!doc) return;
    if (doc.status !== "PENDING" && doc.status !== "PROCESSING") {
      if (doc.status === "FAILED") admin("GET", `/projects/${projectId}/documents/${doc.id}/index-status`).then(setIndex, () => {});
      return;
    }
    const t = setTimeout(() => fetchDoc(false).catch(() => {}), 700);
    return () => clearTimeout(t);
  }, [doc]);
  const save = async (e: Event) => {
    e.preventDefault();
    const timer = (v: string) => (v.trim() === "" ? null : Number(v));
    const body = {
      name: f.name,
      content: f.content,
      tags: f.tags,
      locationId: f.locationId || null,
      when: f.when.trim() || null,
      sticky: timer(f.sticky),
      cooldown: timer(f.cooldown),
      delay: timer(f.delay),
    };
    const saved = await act.run(() => (isNew ? admin("POST", `/projects/${projectId}/documents`, body) : admin("PATCH", `/projects/${projectId}/documents/${docId}`, body)));
    if (saved) {
      setDoc(saved);
      if (isNew) go(`/p/${projectId}/lore/${saved.id}`);
    }
  };
  return (
    <section aria-labelledby="doc-title">
      <p>
        <Link href={`/p/${projectId}/lore`}>← All documents</Link>
      </p>
      <div class="row">
        <h1 id="doc-title" class="grow">
          {isNew ? "New document" : f.name}
        </h1>
        {doc && (
          <span data-testid="doc-status" aria-live="polite">
            <StatusBadge status={doc.status} /> {doc.status === "FAILED" && index?.errorMessage ? index.errorMessage : ""}
          </span>
        )}
      </div>
      <form onSubmit={save} class="card" aria-label="Document editor">
        <Field label="Name">
          <input required maxLength={200} value={f.name} onInput={(e) => setF({ ...f, name: (e.target as HTMLInputElement).value })} />
        </Field>
        <div class="tabs" role="tablist">
          <button type="button" role="tab" aria-selected={tab === "write"} onClick={() => setTab("write")}>
            Write
          </button>
          <button type="button" role="tab" aria-selected={tab === "preview"} onClick={() => setTab("preview")}>
            Preview
          </button>
        </div>
        {tab === "write" ? (
          <Field label="Content (Markdown)">
            <textarea class="mono" rows={14} value={f.content} onInput={(e) => setF({ ...f, content: (e.target as HTMLTextAreaElement).value })} />
          </Field>
        ) : (
          <div class="preview" data-testid="md-preview">
            <Markdown text={f.content} />
          </div>
        )}
        <TagPicker label="Tags" all={(tags.data?.tags ?? []).map((t) => t.name)} value={f.tags} onChange={(v) => setF({ ...f, tags: v })} />
        <Field label="Location">
          <select value={f.locationId} onChange={(e) => setF({ ...f, locationId: (e.target as HTMLSelectElement).value })}>
            <option value="">(none)</option>
            {locations.data?.locations.map((l) => (
              <option value={l.id}>{l.name}</option>
            ))}
          </select>
        </Field>
        <fieldset>
          <legend>When it may reach a prompt</legend>
          <Field label="Condition" hint="world and player state, e.g. quest.flood.stage >= 2; empty: always">
            <ConditionInput projectId={projectId} label="Condition" value={f.when} onInput={(v) => setF({ ...f, when: v })} />
          </Field>
          <div class="row">
            {(["delay", "sticky", "cooldown"] as const).map((k) => (
              <Field label={`${k[0].toUpperCase()}${k.slice(1)} (turns)`}>
                <input type="number" min={0} max={1000} value={f[k]} onInput={(e) => setF({ ...f, [k]: (e.target as HTMLInputElement).value })} />
              </Field>
            ))}
          </div>
        </fieldset>
        <ErrorBox error={act.error} />
        <div class="row">
          <button type="submit" class="primary" disabled={act.busy}>
            {isNew ? "Create document" : "Save document"}
          </button>
          {!isNew && (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          )}
        </div>
      </form>
      {doc?.chunks && (
        <section aria-labelledby="chunks-title">
          <h2 id="chunks-title">Chunks ({doc.chunks.length})</h2>
          {doc.chunks.map((c: any) => (
            <details class="chunk">
              <summary>
                #{c.chunkIndex} · {c.tags.join(", ")} · {c.content.slice(0, 80)}
              </summary>
              <pre>{c.content}</pre>
            </details>
          ))}
        </section>
      )}
      <Confirm
        open={confirmDelete}
        title={`Delete “${f.name}”?`}
        body={<p>The document and its chunks are removed from every mind's knowledge.</p>}
        confirmLabel="Delete document"
        onCancel={() => setConfirmDelete(false)}
        onConfirm={async () => {
          setConfirmDelete(false);
          if (await act.run(() => admin("DELETE", `/projects/${projectId}/documents/${docId}`))) go(`/p/${projectId}/lore`);
        }}
      />
    </section>
  );
}
