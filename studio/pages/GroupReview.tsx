import { useState } from "preact/hooks";
import { admin, v1 } from "../api.ts";
import { ErrorBox, Field, useAction, useAsync } from "../components/ui.tsx";
import { GroupRow } from "./GroupRow.tsx";
import { KnowledgeSuggestions } from "./KnowledgeSuggestions.tsx";
import { compact, isEmpty, useRejected, type SelectorKind } from "./reviewState.ts";
import { SkippedSummary } from "./SkippedSummary.tsx";

const PAGE = 50;
const LABEL: Record<SelectorKind, string> = { kinds: "kind", folders: "folder", files: "file", groups: "group" };

/**
 * Review a scan by group (issue 12): the groups still open first, each accepted or rejected whole;
 * a kind, folder or file accepted or rejected in one action. Accepting commits through
 * POST /v1/scanner/commit's `accept` selection, with this browser's rejections as `reject`;
 * rejections stay in this browser (reviewState.ts) and hide what they cover.
 */
export function GroupReview({ projectId, jobId, onCommitted }: { projectId: string; jobId: string; onCommitted: () => void }) {
  const { rejected, reject, restore, clear } = useRejected(projectId, jobId);
  const [filter, setFilter] = useState({ kind: "", minConfidence: "", search: "", openOnly: true });
  const [limit, setLimit] = useState(PAGE);
  const [bulk, setBulk] = useState<Record<"kinds" | "folders" | "files", string>>({ kinds: "", folders: "", files: "" });
  const [result, setResult] = useState<string | null>(null);
  const body = {
    ...(isEmpty(rejected) ? {} : { hide: compact(rejected) }),
    ...(filter.kind ? { kind: filter.kind } : {}),
    ...(filter.minConfidence ? { minConfidence: Number(filter.minConfidence) } : {}),
    ...(filter.search ? { search: filter.search } : {}),
    openOnly: filter.openOnly,
    limit,
  };
  const data = useAsync(() => admin("POST", `/projects/${projectId}/scan-jobs/${jobId}/review-groups`, body), [projectId, jobId, JSON.stringify(body)]);
  const act = useAction();
  const d = data.data;
  const accept = async (what: SelectorKind, value: string, label: string) => {
    const r = await act.run(() =>
      v1(projectId, "POST", "/scanner/commit", { jobId, extractionIds: [], accept: { [what]: [value] }, ...(isEmpty(rejected) ? {} : { reject: compact(rejected) }) }),
    );
    if (r) {
      setResult(`Accepted ${label}: ${r.committed} document(s); they are indexing now (see Lore).`);
      data.reload();
      onCommitted();
    }
  };
  const rejectOne = (what: SelectorKind, value: string, label: string) => {
    reject(what, value);
    setResult(`Rejected ${label}. It stays rejected in this browser; restore it below.`);
  };
  const setF = (k: "kind" | "minConfidence" | "search") => (e: Event) => setFilter({ ...filter, [k]: (e.target as HTMLInputElement).value });
  const facet = (k: "kinds" | "folders" | "files") => (d?.[k] ?? []) as { name: string; count: number; hidden: number; committed: number }[];
  const rejectedList = (Object.keys(LABEL) as SelectorKind[]).flatMap((k) => rejected[k].map((v) => [k, v] as const));
  return (
    <section aria-labelledby="groups-title">
      <h2 id="groups-title">Review by group</h2>
      {d && (
        <p role="status" data-testid="review-totals">
          <strong>{d.totals.open}</strong> open · {d.totals.committed} accepted · {d.totals.hidden} rejected — {d.totals.extractions} extractions in {d.totals.groups} groups
        </p>
      )}
      <div class="row wrap filters" role="search">
        <Field label="Kind">
          <select value={filter.kind} onChange={setF("kind")}>
            <option value="">any</option>
            {facet("kinds").map((k) => (
              <option value={k.name}>
                {k.name} ({k.count})
              </option>
            ))}
          </select>
        </Field>
        <Field label="Min confidence">
          <input type="number" min={0} max={1} step={0.05} value={filter.minConfidence} onInput={setF("minConfidence")} />
        </Field>
        <Field label="Find a group">
          <input type="search" value={filter.search} onChange={setF("search")} />
        </Field>
        <label class="inline">
          <input type="checkbox" checked={filter.openOnly} onChange={() => setFilter({ ...filter, openOnly: !filter.openOnly })} /> Only open groups
        </label>
      </div>
      <section class="card bulk" aria-labelledby="bulk-title">
        <h3 id="bulk-title">Accept or reject at once</h3>
        {(["kinds", "folders", "files"] as const).map((k) => {
          const value = bulk[k];
          const f = facet(k).find((x) => x.name === value);
          const label = `${LABEL[k]} ${value}`;
          return (
            <div class="row">
              <Field label={`A whole ${LABEL[k]}`}>
                <select value={value} onChange={(e) => setBulk({ ...bulk, [k]: (e.target as HTMLSelectElement).value })}>
                  <option value="">choose…</option>
                  {facet(k).map((x) => (
                    <option value={x.name}>
                      {x.name} ({x.count - x.hidden - x.committed} open of {x.count})
                    </option>
                  ))}
                </select>
              </Field>
              <button type="button" class="primary" disabled={!f || act.busy} onClick={() => accept(k, value, label)}>
                Accept {LABEL[k]}
              </button>
              <button type="button" disabled={!f || rejected[k].includes(value)} onClick={() => rejectOne(k, value, label)}>
                Reject {LABEL[k]}
              </button>
            </div>
          );
        })}
      </section>
      <ErrorBox error={act.error ?? data.error} />
      {result && (
        <p class="card ok" role="status" data-testid="group-result">
          {result}
        </p>
      )}
      {rejectedList.length > 0 && (
        <div class="card" data-testid="rejected">
          <h3>Rejected in this browser ({rejectedList.length})</h3>
          <p class="muted">Kept in this browser's storage for this scan (the server stores only what you accept); hidden from the groups and never committed by an accept.</p>
          <ul class="plain">
            {rejectedList.map(([k, v]) => (
              <li>
                <span class="badge">{LABEL[k]}</span> <code>{v}</code>{" "}
                <button type="button" class="small" onClick={() => restore(k, v)} aria-label={`Restore ${LABEL[k]} ${v}`}>
                  Restore
                </button>
              </li>
            ))}
          </ul>
          <button type="button" class="small" onClick={clear}>
            Restore everything
          </button>
        </div>
      )}
      {d && (
        <div data-testid="groups">
          {d.groups.length === 0 && <p class="muted">{filter.openOnly ? "No open group left: everything is accepted or rejected." : "No group matches."}</p>}
          {d.groups.map((g: any) => (
            <GroupRow
              key={g.group}
              projectId={projectId}
              jobId={jobId}
              g={g}
              rejected={rejected}
              busy={act.busy}
              onAccept={() => accept("groups", g.group, `"${g.title}"`)}
              onReject={() => rejectOne("groups", g.group, `"${g.title}"`)}
              onRestore={() => restore("groups", g.group)}
              onChanged={data.reload}
            />
          ))}
          {d.matchedGroups > d.groups.length && (
            <button type="button" onClick={() => setLimit(limit + PAGE)}>
              Show more ({d.matchedGroups - d.groups.length} left)
            </button>
          )}
        </div>
      )}
      {d && <KnowledgeSuggestions projectId={projectId} suggestions={d.knowledgeSuggestions} onApplied={data.reload} />}
      {d && <SkippedSummary skipped={d.skipped} />}
    </section>
  );
}
