import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { Confirm, ErrorBox, Field, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

const BUILT_IN = ["FRIEND", "RIVAL", "MENTOR", "STUDENT", "FAMILY", "ROMANTIC", "ALLY", "ENEMY", "EMPLOYER", "EMPLOYEE", "NEUTRAL"];

/** Tags, locations, relationship types and relationships, with the graph of minds. */
export function World({ projectId }: SectionProps) {
  const base = `/projects/${projectId}`;
  const tags = useAsync(() => admin("GET", `${base}/tags`), [projectId]);
  const locations = useAsync(() => admin("GET", `${base}/locations`), [projectId]);
  const types = useAsync(() => admin("GET", `${base}/relationship-types`), [projectId]);
  const rels = useAsync(() => admin("GET", `${base}/relationships`), [projectId]);
  const minds = useAsync(() => admin("GET", `${base}/minds`), [projectId]);
  const act = useAction();
  const [del, setDel] = useState<{ path: string; label: string; reload: () => void } | null>(null);
  const [tag, setTag] = useState({ name: "", color: "#7c5cff" });
  const [loc, setLoc] = useState({ name: "", description: "" });
  const [type, setType] = useState({ name: "", color: "#22aa88", isSymmetric: false });
  const [rel, setRel] = useState({ fromEntityId: "", toEntityId: "", kind: "FRIEND", description: "" });
  const submit = (fn: () => Promise<unknown>, after: () => void) => async (e: Event) => {
    e.preventDefault();
    if (await act.run(fn)) after();
  };
  const delButton = (path: string, label: string, reload: () => void) => (
    <button type="button" class="danger small" aria-label={`Delete ${label}`} onClick={() => setDel({ path, label, reload })}>
      Delete
    </button>
  );
  return (
    <section aria-labelledby="world-title">
      <h1 id="world-title">Tags, places and relations</h1>
      <ErrorBox error={act.error} />
      <div class="grid2">
        <div class="card">
          <h2>Tags</h2>
          <form class="row" onSubmit={submit(() => admin("POST", `${base}/tags`, tag), () => (setTag({ ...tag, name: "" }), tags.reload()))}>
            <Field label="Tag name">
              <input required maxLength={100} value={tag.name} onInput={(e) => setTag({ ...tag, name: (e.target as HTMLInputElement).value })} />
            </Field>
            <Field label="Colour">
              <input type="color" value={tag.color} onInput={(e) => setTag({ ...tag, color: (e.target as HTMLInputElement).value })} />
            </Field>
            <button type="submit">Add tag</button>
          </form>
          <ul class="plain">
            {tags.data?.tags.map((t: any) => (
              <li class="row">
                <span class="chip on">{t.name}</span>
                <span class="muted grow">{t.documentCount} docs{t.isDefault ? " · default" : ""}</span>
                {!t.isDefault && <InlineEdit path={`${base}/tags/${t.id}`} what={`tag ${t.name}`} initial={{ name: t.name, color: t.color ?? "#7c5cff" }} onSaved={tags.reload} />}
                {!t.isDefault && delButton(`${base}/tags/${t.id}`, `tag ${t.name}`, tags.reload)}
              </li>
            ))}
          </ul>
        </div>
        <div class="card">
          <h2>Locations</h2>
          <form class="row" onSubmit={submit(() => admin("POST", `${base}/locations`, { name: loc.name, description: loc.description || null }), () => (setLoc({ name: "", description: "" }), locations.reload()))}>
            <Field label="Location name">
              <input required maxLength={200} value={loc.name} onInput={(e) => setLoc({ ...loc, name: (e.target as HTMLInputElement).value })} />
            </Field>
            <Field label="Description">
              <input value={loc.description} onInput={(e) => setLoc({ ...loc, description: (e.target as HTMLInputElement).value })} />
            </Field>
            <button type="submit">Add location</button>
          </form>
          <ul class="plain">
            {locations.data?.locations.map((l: any) => (
              <li class="row">
                <strong>{l.name}</strong>
                <span class="muted grow">
                  {l.description ? `${l.description} · ` : ""}
                  {l.entityMindCount} minds
                </span>
                <InlineEdit path={`${base}/locations/${l.id}`} what={`location ${l.name}`} initial={{ name: l.name, description: l.description ?? "" }} onSaved={locations.reload} />
                {delButton(`${base}/locations/${l.id}`, `location ${l.name}`, locations.reload)}
              </li>
            ))}
          </ul>
        </div>
        <div class="card">
          <h2>Relationship types</h2>
          <form class="row" onSubmit={submit(() => admin("POST", `${base}/relationship-types`, type), () => (setType({ ...type, name: "" }), types.reload()))}>
            <Field label="Type name">
              <input required maxLength={200} value={type.name} onInput={(e) => setType({ ...type, name: (e.target as HTMLInputElement).value })} />
            </Field>
            <Field label="Colour">
              <input type="color" value={type.color} onInput={(e) => setType({ ...type, color: (e.target as HTMLInputElement).value })} />
            </Field>
            <label class="inline">
              <input type="checkbox" checked={type.isSymmetric} onChange={(e) => setType({ ...type, isSymmetric: (e.target as HTMLInputElement).checked })} /> symmetric
            </label>
            <button type="submit">Add type</button>
          </form>
          <p class="muted">Built in: {BUILT_IN.join(", ")}</p>
          <ul class="plain">
            {types.data?.["relationship-types"]?.map((t: any) => (
              <li class="row">
                <span class="chip on">{t.name}</span>
                <span class="muted grow">used {t.usageCount}×</span>
                <InlineEdit path={`${base}/relationship-types/${t.id}`} what={`type ${t.name}`} initial={{ name: t.name, color: t.color }} onSaved={types.reload} />
                {delButton(`${base}/relationship-types/${t.id}`, `type ${t.name}`, types.reload)}
              </li>
            ))}
          </ul>
        </div>
        <div class="card">
          <h2>Relationships</h2>
          <form
            class="row wrap"
            onSubmit={submit(
              () => {
                const custom = types.data?.["relationship-types"]?.find((t: any) => t.id === rel.kind);
                return admin("POST", `${base}/relationships`, {
                  fromEntityId: rel.fromEntityId,
                  toEntityId: rel.toEntityId,
                  ...(custom ? { customTypeId: custom.id } : { type: rel.kind }),
                  description: rel.description || null,
                });
              },
              () => rels.reload(),
            )}
          >
            <Field label="From">
              <select required value={rel.fromEntityId} onChange={(e) => setRel({ ...rel, fromEntityId: (e.target as HTMLSelectElement).value })}>
                <option value="">choose…</option>
                {minds.data?.minds.map((m: any) => (
                  <option value={m.id}>{m.entityName}</option>
                ))}
              </select>
            </Field>
            <Field label="Type">
              <select value={rel.kind} onChange={(e) => setRel({ ...rel, kind: (e.target as HTMLSelectElement).value })}>
                {BUILT_IN.map((b) => (
                  <option value={b}>{b}</option>
                ))}
                {types.data?.["relationship-types"]?.map((t: any) => (
                  <option value={t.id}>{t.name}</option>
                ))}
              </select>
            </Field>
            <Field label="To">
              <select required value={rel.toEntityId} onChange={(e) => setRel({ ...rel, toEntityId: (e.target as HTMLSelectElement).value })}>
                <option value="">choose…</option>
                {minds.data?.minds.map((m: any) => (
                  <option value={m.id}>{m.entityName}</option>
                ))}
              </select>
            </Field>
            <button type="submit">Add relationship</button>
          </form>
          <ul class="plain">
            {rels.data?.relationships.map((r: any) => (
              <li class="row">
                <span class="grow">
                  {r.fromEntity.entityName} → <strong>{r.type ?? r.customType?.name}</strong> → {r.toEntity.entityName}
                </span>
                {delButton(`${base}/relationships/${r.id}`, `relationship ${r.fromEntity.entityName} to ${r.toEntity.entityName}`, rels.reload)}
              </li>
            ))}
          </ul>
        </div>
      </div>
      <h2>Graph of minds</h2>
      <Graph minds={minds.data?.minds ?? []} rels={rels.data?.relationships ?? []} />
      <Confirm
        open={!!del}
        title={`Delete ${del?.label}?`}
        body={<p>This cannot be undone.</p>}
        confirmLabel="Delete"
        onCancel={() => setDel(null)}
        onConfirm={async () => {
          const d = del!;
          setDel(null);
          await act.run(() => admin("DELETE", d.path));
          d.reload();
        }}
      />
    </section>
  );
}

/** Minds on a circle, relationships as labelled arrows (an SVG; names are text nodes, never markup). */
function Graph({ minds, rels }: { minds: any[]; rels: any[] }) {
  if (minds.length === 0) return <p class="muted">No minds yet.</p>;
  const W = 640;
  const H = 420;
  const R = Math.min(W, H) / 2 - 60;
  const pos = new Map(minds.map((m, i) => [m.id, { x: W / 2 + R * Math.cos((2 * Math.PI * i) / minds.length - Math.PI / 2), y: H / 2 + R * Math.sin((2 * Math.PI * i) / minds.length - Math.PI / 2) }]));
  return (
    <svg class="graph" viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`Relationship graph: ${minds.length} minds, ${rels.length} relationships`}>
      <defs>
        <marker id="arrow" viewBox="0 0 10 10" refX="22" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill="#888" />
        </marker>
      </defs>
      {rels.map((r) => {
        const a = pos.get(r.fromEntity.id);
        const b = pos.get(r.toEntity.id);
        if (!a || !b) return null;
        return (
          <g>
            <line x1={a.x} y1={a.y} x2={b.x} y2={b.y} stroke={r.customType?.color ?? "#888"} stroke-width="2" marker-end="url(#arrow)" />
            <text x={(a.x + b.x) / 2} y={(a.y + b.y) / 2 - 4} class="edge-label">
              {r.type ?? r.customType?.name}
            </text>
          </g>
        );
      })}
      {minds.map((m) => {
        const p = pos.get(m.id)!;
        return (
          <g>
            <circle cx={p.x} cy={p.y} r="16" class="node" />
            <text x={p.x} y={p.y + 32} class="node-label">
              {m.entityName}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** Edit a row's name (and colour or description) in place; PATCH with just those fields. */
function InlineEdit({ path, what, initial, onSaved }: { path: string; what: string; initial: Record<string, string>; onSaved: () => void }) {
  const [open, setOpen] = useState(false);
  const [v, setV] = useState(initial);
  const act = useAction();
  if (!open)
    return (
      <button type="button" class="small" aria-label={`Edit ${what}`} onClick={() => (setV(initial), setOpen(true))}>
        Edit
      </button>
    );
  return (
    <form
      class="row wrap"
      aria-label={`Edit ${what}`}
      onSubmit={async (e) => {
        e.preventDefault();
        const body = Object.fromEntries(Object.entries(v).map(([k, x]) => [k, k === "description" && !x ? null : x]));
        if (await act.run(() => admin("PATCH", path, body))) {
          setOpen(false);
          onSaved();
        }
      }}
    >
      {Object.keys(initial).map((k) => (
        <Field label={k === "name" ? "New name" : k === "color" ? "Colour" : "Description"}>
          <input type={k === "color" ? "color" : "text"} required={k === "name"} value={v[k]} onInput={(e) => setV({ ...v, [k]: (e.target as HTMLInputElement).value })} />
        </Field>
      ))}
      <button type="submit" class="small primary">
        Save
      </button>
      <button type="button" class="small" onClick={() => setOpen(false)}>
        Cancel
      </button>
      <ErrorBox error={act.error} />
    </form>
  );
}
