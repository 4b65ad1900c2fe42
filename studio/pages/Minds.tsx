import { useEffect, useState } from "preact/hooks";
import { Link, useLocation } from "wouter-preact";
import { admin, HttpError } from "../api.ts";
import { BehaviourEditor } from "../components/behaviour/BehaviourEditor.tsx";
import { toForm as behaviourForm, toJson as behaviourJson } from "../components/behaviour/behaviourForm.ts";
import { Confirm, ErrorBox, Field, Loading, TagPicker, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";
import { WhenRows, type WhenLine } from "../components/conditions.tsx";

const lines = (s: string) => s.split("\n").map((l) => l.trim()).filter(Boolean);
type Line = string | WhenLine;
const plainLines = (l: Line[]) => l.filter((x): x is string => typeof x === "string");
const whenLines = (l: Line[]) => l.filter((x): x is WhenLine => typeof x !== "string").map((x) => ({ text: x.text, when: x.when }));
const filled = (r: WhenLine) => r.text.trim() !== "" || r.when.trim() !== "";
const trimmed = (r: WhenLine) => ({ text: r.text.trim(), when: r.when.trim() });
const blank = {
  entityName: "",
  personality: "",
  backstory: "",
  backstorySummary: "",
  role: "",
  speakingStyle: "",
  hints: "",
  restrictions: "",
  locationId: "",
  knowledgeTags: [] as string[],
  /** conditional lines and knowledge ({text, when}; for knowledge, text is the tag) */
  whenHints: [] as WhenLine[],
  whenRestrictions: [] as WhenLine[],
  whenKnowledge: [] as WhenLine[],
  knowledgeDescription: "",
  verbosity: "balanced",
  maxTokens: "",
  temperature: "",
  maxSentences: "",
};

/** Rows rendered at once: a thousand-mind project's table built whole took most of the page's half second. */
const PAGE = 50;

/** A reply's sentence limit when none is set, by verbosity (src/lore/minds/responseConfig.ts VERBOSITY_SENTENCES). */
const DEFAULT_SENTENCES: Record<string, number> = { terse: 2, balanced: 3, verbose: 5 };

/** A new mind prefilled from the page's query (`#/p/…/minds/new?name=Mira&tags=smugglers`: the scan review's suggestions). */
function prefilled() {
  const q = new URLSearchParams(location.hash.split("?")[1] ?? "");
  const tags = (q.get("tags") ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  return { ...blank, entityName: q.get("name") ?? "", knowledgeTags: tags };
}

export function Minds({ projectId, item }: SectionProps) {
  const minds = useAsync(() => admin<{ minds: any[] }>("GET", `/projects/${projectId}/minds`), [projectId]);
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  const matching = (minds.data?.minds ?? []).filter((m) => `${m.entityName} ${m.role ?? ""} ${m.knowledgeTags.join(" ")}`.toLowerCase().includes(q.toLowerCase()));
  const shown = matching.slice(offset, offset + PAGE);
  if (item) return <MindEditor projectId={projectId} mindId={item} onSaved={minds.reload} />;
  return (
    <section aria-labelledby="minds-title">
      <div class="row">
        <h1 id="minds-title" class="grow">
          Minds
        </h1>
        <Link href={`/p/${projectId}/minds/new`} class="button primary">
          New mind
        </Link>
      </div>
      <input type="search" aria-label="Search minds" placeholder="Search by name, role or tag" value={q} onInput={(e) => (setQ((e.target as HTMLInputElement).value), setOffset(0))} />
      <ErrorBox error={minds.error} />
      {!minds.data && <Loading />}
      <table class="list">
        <thead>
          <tr>
            <th>Name</th>
            <th>Role</th>
            <th>Knowledge tags</th>
            <th>Sees</th>
            <th>Interactions</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((m) => (
            <tr>
              <td>
                <Link href={`/p/${projectId}/minds/${m.id}`}>{m.entityName}</Link>
              </td>
              <td>{m.role ?? "—"}</td>
              <td>{m.knowledgeTags.join(", ") || <span class="warn">none: cannot talk</span>}</td>
              <td>
                {m.computedFilter.documentCount} docs, {m.computedFilter.chunkCount} chunks
              </td>
              <td>{m.interactionCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {matching.length > PAGE && (
        <div class="row pager">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </button>
          <span>{`${offset + 1}–${Math.min(offset + PAGE, matching.length)} of ${matching.length}`}</span>
          <button type="button" disabled={offset + PAGE >= matching.length} onClick={() => setOffset(offset + PAGE)}>
            Next
          </button>
        </div>
      )}
    </section>
  );
}

function MindEditor({ projectId, mindId, onSaved }: { projectId: string; mindId: string; onSaved: () => void }) {
  const isNew = mindId === "new";
  const [, go] = useLocation();
  const [f, setF] = useState(() => (isNew ? prefilled() : { ...blank }));
  const [mind, setMind] = useState<any>(null);
  // The API fills an empty knowledge description with a generated one: send it back only when the author edited it.
  const [loadedDescription, setLoadedDescription] = useState<string | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [behaviour, setBehaviour] = useState(() => behaviourForm(null));
  const tags = useAsync(() => admin<{ tags: { name: string }[] }>("GET", `/projects/${projectId}/tags`), [projectId]);
  const locations = useAsync(() => admin<{ locations: { id: string; name: string }[] }>("GET", `/projects/${projectId}/locations`), [projectId]);
  const rels = useAsync(() => admin<{ relationships: any[] }>("GET", `/projects/${projectId}/relationships`), [projectId]);
  const act = useAction();
  const load = async () => {
    if (isNew) return;
    const m = await admin("GET", `/projects/${projectId}/minds/${mindId}`);
    setMind(m);
    setLoadedDescription(m.knowledgeDescription ?? "");
    setBehaviour(behaviourForm(m.behaviour));
    setF({
      entityName: m.entityName,
      personality: m.personality,
      backstory: m.backstory ?? "",
      backstorySummary: m.backstorySummary ?? "",
      role: m.role ?? "",
      speakingStyle: m.speakingStyle ?? "",
      hints: plainLines(m.hints).join("\n"),
      restrictions: plainLines(m.restrictions).join("\n"),
      whenHints: whenLines(m.hints),
      whenRestrictions: whenLines(m.restrictions),
      whenKnowledge: (m.knowledge ?? []).map((k: any) => ({ text: k.tag, when: k.when })),
      locationId: m.locationId ?? "",
      knowledgeTags: m.knowledgeTags,
      knowledgeDescription: m.knowledgeDescription ?? "",
      verbosity: m.responseConfig?.verbosity ?? "balanced",
      maxTokens: m.responseConfig?.maxTokens == null ? "" : String(m.responseConfig.maxTokens),
      temperature: m.responseConfig?.temperature == null ? "" : String(m.responseConfig.temperature),
      // The verbosity's own limit shows as the placeholder, so changing the verbosity still changes it.
      maxSentences:
        m.responseConfig?.maxSentences == null || m.responseConfig.maxSentences === DEFAULT_SENTENCES[m.responseConfig.verbosity ?? "balanced"]
          ? ""
          : String(m.responseConfig.maxSentences),
    });
  };
  useEffect(() => {
    act.run(load);
  }, [mindId]);
  const set = (k: "entityName" | "personality" | "backstory" | "backstorySummary" | "role" | "speakingStyle" | "hints" | "restrictions" | "locationId" | "knowledgeDescription" | "verbosity" | "maxTokens" | "temperature" | "maxSentences") => (e: Event) => setF({ ...f, [k]: (e.target as HTMLInputElement).value });
  const save = async (e: Event) => {
    e.preventDefault();
    const body = {
      entityName: f.entityName,
      personality: f.personality,
      backstory: f.backstory || null,
      backstorySummary: f.backstorySummary || null,
      role: f.role || null,
      speakingStyle: f.speakingStyle || null,
      hints: [...lines(f.hints), ...f.whenHints.filter(filled).map(trimmed)],
      restrictions: [...lines(f.restrictions), ...f.whenRestrictions.filter(filled).map(trimmed)],
      knowledge: f.whenKnowledge.filter(filled).map((k) => ({ tag: k.text.trim(), when: k.when.trim() })),
      locationId: f.locationId || null,
      knowledgeTags: f.knowledgeTags,
      ...(isNew || f.knowledgeDescription !== loadedDescription ? { knowledgeDescription: f.knowledgeDescription || null } : {}),
      responseConfig: {
        verbosity: f.verbosity,
        maxTokens: f.maxTokens === "" ? null : Number(f.maxTokens),
        temperature: f.temperature === "" ? null : Number(f.temperature),
        maxSentences: f.maxSentences === "" ? null : Number(f.maxSentences),
      },
      behaviour: behaviourJson(behaviour),
    };
    const saved = await act.run(() => (isNew ? admin("POST", `/projects/${projectId}/minds`, body) : admin("PATCH", `/projects/${projectId}/minds/${mindId}`, body)));
    if (saved) {
      setMind(saved);
      setLoadedDescription(saved.knowledgeDescription ?? "");
      setF((cur) => ({ ...cur, knowledgeDescription: saved.knowledgeDescription ?? "" }));
      onSaved();
      if (isNew) go(`/p/${projectId}/minds/${saved.id}`);
    }
  };
  const mine = (rels.data?.relationships ?? []).filter((r) => r.fromEntity.id === mindId || r.toEntity.id === mindId);
  return (
    <section aria-labelledby="mind-title">
      <p>
        <Link href={`/p/${projectId}/minds`}>← All minds</Link>
      </p>
      <h1 id="mind-title">{isNew ? "New mind" : f.entityName || "Mind"}</h1>
      <div class="cols">
        <form onSubmit={save} class="card grow" aria-label="Mind editor">
          <Field label="Name">
            <input required maxLength={200} value={f.entityName} onInput={set("entityName")} />
          </Field>
          <Field label="Personality">
            <textarea required rows={3} value={f.personality} onInput={set("personality")} />
          </Field>
          <Field label="Role">
            <input maxLength={200} value={f.role} onInput={set("role")} />
          </Field>
          <Field label="Speaking style">
            <textarea rows={2} value={f.speakingStyle} onInput={set("speakingStyle")} />
          </Field>
          <Field label="Backstory">
            <textarea rows={5} value={f.backstory} onInput={set("backstory")} />
          </Field>
          <Field label="Backstory summary">
            <textarea rows={2} value={f.backstorySummary} onInput={set("backstorySummary")} />
          </Field>
          <Field label="Hints" hint="one per line">
            <textarea rows={3} value={f.hints} onInput={set("hints")} />
          </Field>
          <Field label="Restrictions" hint="one per line">
            <textarea rows={3} value={f.restrictions} onInput={set("restrictions")} />
          </Field>
          <WhenRows projectId={projectId} label="Conditional hint lines" textLabel="hint" rows={f.whenHints} onChange={(v) => setF({ ...f, whenHints: v })} />
          <WhenRows projectId={projectId} label="Conditional restriction lines" textLabel="restriction" rows={f.whenRestrictions} onChange={(v) => setF({ ...f, whenRestrictions: v })} />
          <p class="muted">A conditional line is never in the mind's shared prompt: it joins a player's turn while its condition holds.</p>
          <Field label="Location">
            <select value={f.locationId} onChange={set("locationId")}>
              <option value="">(none)</option>
              {locations.data?.locations.map((l) => (
                <option value={l.id}>{l.name}</option>
              ))}
            </select>
          </Field>
          <TagPicker label="Knowledge tags" all={(tags.data?.tags ?? []).map((t) => t.name)} value={f.knowledgeTags} onChange={(v) => setF({ ...f, knowledgeTags: v })} />
          <WhenRows projectId={projectId} label="Conditional knowledge" textLabel="tag" rows={f.whenKnowledge} onChange={(v) => setF({ ...f, whenKnowledge: v })} />
          <Field label="Knowledge description" hint="left empty, one is written from the tags">
            <textarea rows={2} value={f.knowledgeDescription} onInput={set("knowledgeDescription")} />
          </Field>
          <fieldset>
            <legend>Response</legend>
            <div class="row">
              <Field label="Verbosity">
                <select value={f.verbosity} onChange={set("verbosity")}>
                  <option value="terse">terse</option>
                  <option value="balanced">balanced</option>
                  <option value="verbose">verbose</option>
                </select>
              </Field>
              <Field label="Max tokens">
                <input type="number" min={1} max={2048} value={f.maxTokens} onInput={set("maxTokens")} />
              </Field>
              <Field label="Temperature">
                <input type="number" min={0} max={2} step={0.05} value={f.temperature} onInput={set("temperature")} />
              </Field>
              <Field label="Max sentences" hint="a reply ends at the end of this sentence">
                <input type="number" min={1} max={12} step={1} placeholder={String(DEFAULT_SENTENCES[f.verbosity] ?? 3)} value={f.maxSentences} onInput={set("maxSentences")} />
              </Field>
            </div>
          </fieldset>
          <BehaviourEditor value={behaviour} onChange={setBehaviour} problems={act.error instanceof HttpError && Array.isArray(act.error.body?.details) ? act.error.body.details : []} />
          <ErrorBox error={act.error} />
          <div class="row">
            <button class="primary" type="submit" disabled={act.busy}>
              {isNew ? "Create mind" : "Save mind"}
            </button>
            {!isNew && (
              <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                Delete
              </button>
            )}
            {act.busy && <span class="muted">Saving…</span>}
          </div>
        </form>
        {mind && (
          <aside class="card side-info" aria-label="What this mind can see">
            <h2>What {mind.entityName} can see</h2>
            <p data-testid="computed-filter">
              {mind.computedFilter.documentCount} documents, {mind.computedFilter.chunkCount} chunks through tags {mind.computedFilter.tags.join(", ") || "(none)"}.
            </p>
            <p class="muted">{mind.knowledgeDescription}</p>
            <h2>Relationships</h2>
            <ul>
              {mine.map((r) => (
                <li>
                  {r.fromEntity.entityName} → <strong>{r.type ?? r.customType?.name}</strong> → {r.toEntity.entityName}
                </li>
              ))}
              {mine.length === 0 && <li class="muted">none</li>}
            </ul>
            <p>
              <a href={`#/p/${projectId}/playground?mind=${mind.id}`}>Talk to {mind.entityName} in the playground</a>
            </p>
          </aside>
        )}
      </div>
      <Confirm
        open={confirmDelete}
        title={`Delete ${f.entityName}?`}
        body={<p>The mind, its relationships, sessions and memories are deleted.</p>}
        confirmLabel="Delete mind"
        onCancel={() => setConfirmDelete(false)}
        onConfirm={async () => {
          setConfirmDelete(false);
          if (await act.run(() => admin("DELETE", `/projects/${projectId}/minds/${mindId}`))) {
            onSaved();
            go(`/p/${projectId}/minds`);
          }
        }}
      />
    </section>
  );
}
