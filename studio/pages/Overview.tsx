import { admin } from "../api.ts";
import { ErrorBox, fmtNum, Loading, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { useEffect } from "preact/hooks";

export function Overview({ projectId }: SectionProps) {
  const o = useAsync(() => admin("GET", `/projects/${projectId}/overview`), [projectId]);
  useEffect(() => {
    const t = setInterval(() => o.data?.documentsIndexing && o.reload(), 2000);
    return () => clearInterval(t);
  }, [o.data]);
  if (o.error) return <ErrorBox error={o.error} />;
  if (!o.data) return <Loading />;
  const d = o.data;
  const card = (label: string, value: unknown, testid?: string) => (
    <div class="stat" data-testid={testid}>
      <span class="value">{String(value)}</span>
      <span class="label">{label}</span>
    </div>
  );
  return (
    <section aria-labelledby="ov-title">
      <h1 id="ov-title">{d.project.name}</h1>
      <p class="muted">
        Project id <code>{d.project.id}</code>
      </p>
      <div class="stats">
        {card("Minds", d.counts.minds, "count-minds")}
        {card("Documents", d.counts.documents, "count-documents")}
        {card("Still indexing", d.documentsIndexing)}
        {card("Chunks", d.counts.chunks)}
        {card("Tags", d.counts.tags)}
        {card("Locations", d.counts.locations)}
        {card("Relationships", d.counts.relationships)}
        {card("Active keys", d.counts.activeKeys)}
        {card("Players", d.counts.players)}
        {card("Memories", d.counts.memories)}
        {card("Interactions (24 h)", d.interactionsLast24h)}
        {card("Credits available", fmtNum(d.credits.available))}
      </div>
      <h2>Model</h2>
      <p data-testid="model-state">
        <span class={`badge s-${d.model.state}`}>{d.model.state}</span> {d.model.path ?? d.model.error ?? ""}
      </p>
      {d.generation?.mode === "remote" && (
        <table data-testid="backends">
          <thead>
            <tr>
              <th>Backend</th>
              <th>State</th>
              <th>In flight</th>
              <th>Requests</th>
              <th>Errors</th>
              <th>p50 ms</th>
              <th>Cached prompt tokens</th>
            </tr>
          </thead>
          <tbody>
            {d.generation.backends.map((b: any) => (
              <tr>
                <td>
                  {b.url} <span class="muted">({b.kind})</span>
                </td>
                <td>
                  <span class={`badge s-${b.state}`}>{b.state}</span>
                </td>
                <td>
                  {b.inFlight}/{b.maxConcurrent}
                </td>
                <td>{b.requests}</td>
                <td>{b.errors}</td>
                <td>{b.latencyP50Ms === null ? "–" : Math.round(b.latencyP50Ms)}</td>
                <td>{b.cachedPromptTokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Documents by status</h2>
      <p>
        {Object.entries(d.documentsByStatus).map(([s, n]) => (
          <span class={`badge s-${s.toLowerCase()}`}>
            {s}: {String(n)}
          </span>
        ))}
      </p>
    </section>
  );
}
