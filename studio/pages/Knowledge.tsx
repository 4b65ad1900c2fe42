import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, Loading, StatusBadge, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { StateSimulator } from "./StateSimulator.tsx";

interface Matrix {
  minds: { id: string; entityName: string; knowledgeTags: string[] }[];
  tags: string[];
  documents: { id: string; name: string; status: string; tags: string[]; visibleTo: string[] }[];
}

/** Who knows what: the knowledge-scoping rule made visible, and a leak test through the preview. */
export function Knowledge({ projectId }: SectionProps) {
  const m = useAsync(() => admin<Matrix>("GET", `/projects/${projectId}/knowledge-matrix`), [projectId]);
  const [mindId, setMindId] = useState("");
  const [docId, setDocId] = useState("");
  const [leak, setLeak] = useState<any>(null);
  const act = useAction();
  if (m.error) return <ErrorBox error={m.error} />;
  if (!m.data) return <Loading />;
  const { minds, tags, documents } = m.data;
  const mind = minds.find((x) => x.id === mindId);
  const hidden = mind ? documents.filter((d) => !d.visibleTo.includes(mind.id)) : [];
  const tryLeak = async (e: Event) => {
    e.preventDefault();
    const doc = documents.find((d) => d.id === docId)!;
    const full = await act.run(() => admin("GET", `/projects/${projectId}/documents/${doc.id}`));
    if (!full) return;
    // Ask as directly as a player could: the document's title and its opening words.
    const text = `Tell me everything you know about ${doc.name}. ${String(full.content).replace(/\s+/g, " ").slice(0, 300)}`.slice(0, 2000);
    const preview = await act.run(() => admin("POST", `/projects/${projectId}/interact-preview`, { entityMindId: mindId, playerId: "studio-leak-test", text }));
    if (!preview) return;
    const fromDoc = preview.lore.filter((l: any) => l.documentId === doc.id);
    setLeak({ doc, mind, preview, fromDoc, question: text });
  };
  return (
    <section aria-labelledby="kn-title">
      <h1 id="kn-title">Who knows what</h1>
      <p class="muted">A mind sees a document when one of the document's tags is one of the mind's knowledge tags. Retrieval never reaches past this line.</p>
      <div class="scroll-x">
        <table class="matrix" aria-label="Minds by knowledge tags">
          <thead>
            <tr>
              <th scope="col">Mind \ tag</th>
              {tags.map((t) => (
                <th scope="col">{t}</th>
              ))}
              <th scope="col">Documents seen</th>
            </tr>
          </thead>
          <tbody>
            {minds.map((mi) => (
              <tr>
                <th scope="row">{mi.entityName}</th>
                {tags.map((t) => (
                  <td class={mi.knowledgeTags.includes(t) ? "yes" : "no"} aria-label={mi.knowledgeTags.includes(t) ? "knows" : "does not know"}>
                    {mi.knowledgeTags.includes(t) ? "●" : ""}
                  </td>
                ))}
                <td>{documents.filter((d) => d.visibleTo.includes(mi.id)).length}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Documents and who can see them</h2>
      <table class="list">
        <thead>
          <tr>
            <th>Document</th>
            <th>Status</th>
            <th>Tags</th>
            <th>Visible to</th>
          </tr>
        </thead>
        <tbody>
          {documents.map((d) => (
            <tr>
              <td>{d.name}</td>
              <td>
                <StatusBadge status={d.status} />
              </td>
              <td>{d.tags.join(", ") || "—"}</td>
              <td>{d.visibleTo.map((id) => minds.find((x) => x.id === id)?.entityName).join(", ") || <span class="muted">nobody</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <StateSimulator projectId={projectId} />
      <h2>Try to leak</h2>
      <form class="card row wrap" onSubmit={tryLeak} aria-label="Try to leak a document">
        <label class="field">
          <span class="label">Mind</span>
          <select required aria-label="Mind" value={mindId} onChange={(e) => (setMindId((e.target as HTMLSelectElement).value), setDocId(""), setLeak(null))}>
            <option value="">choose…</option>
            {minds.map((x) => (
              <option value={x.id}>{x.entityName}</option>
            ))}
          </select>
        </label>
        <label class="field grow">
          <span class="label">A document it must not know</span>
          <select required aria-label="A document it must not know" value={docId} onChange={(e) => setDocId((e.target as HTMLSelectElement).value)} disabled={!mind}>
            <option value="">{mind && hidden.length === 0 ? "it can see every document" : "choose…"}</option>
            {hidden.map((d) => (
              <option value={d.id}>{d.name}</option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={act.busy || !docId}>
          Ask about it
        </button>
      </form>
      <ErrorBox error={act.error} />
      {leak && (
        <div class={`card ${leak.fromDoc.length ? "error" : "ok"}`} data-testid="leak-result" role="status">
          <p>
            <strong>
              {leak.fromDoc.length === 0
                ? `No chunk of “${leak.doc.name}” reached ${leak.mind.entityName}'s prompt.`
                : `LEAK: ${leak.fromDoc.length} chunk(s) of “${leak.doc.name}” reached the prompt.`}
            </strong>
          </p>
          <p class="muted">
            Visible tags: {leak.preview.visibleTags.join(", ") || "(none)"} · lore retrieved: {leak.preview.lore.map((l: any) => l.documentName).join(", ") || "(none)"}
          </p>
          <details>
            <summary>The exact prompt</summary>
            {leak.preview.prompt.map((p: any) => (
              <pre>
                [{p.role}] {p.content}
              </pre>
            ))}
          </details>
        </div>
      )}
    </section>
  );
}
