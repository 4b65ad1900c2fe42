import { useState } from "preact/hooks";
import { Link } from "wouter-preact";
import { admin } from "../api.ts";
import { ErrorBox, useAction } from "../components/ui.tsx";

const SHOWN = 20;

/** The mind editor for a new mind, prefilled with a speaker's name and suggested tags (Minds reads `?name=&tags=`). */
export const newMindHref = (projectId: string, name: string, tags: string[]) =>
  `/p/${projectId}/minds/new?${new URLSearchParams({ name, tags: tags.join(",") })}`;

/**
 * Per speaking character, the knowledge tags the scan suggests (the project tags of the scenes it
 * speaks in). One click adds the missing ones to the Entity Mind of that name, through the same
 * update the mind editor makes; a character without a mind opens the editor prefilled.
 */
export function KnowledgeSuggestions({ projectId, suggestions, onApplied }: { projectId: string; suggestions: any[]; onApplied: () => void }) {
  const act = useAction();
  const [done, setDone] = useState<string | null>(null);
  const [all, setAll] = useState(false);
  // A large scan has hundreds of speakers: the actionable ones first (a mind that lacks tags, then no mind yet).
  const rank = (s: any) => (s.mind ? (s.newTags.length ? 0 : 2) : 1);
  const ordered = suggestions.map((s, i) => [s, i] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([s]) => s);
  const shown = all ? ordered : ordered.slice(0, SHOWN);
  const apply = async (s: any) => {
    const r = await act.run(() => admin("PATCH", `/projects/${projectId}/minds/${s.mind.id}`, { knowledgeTags: [...s.mind.knowledgeTags, ...s.newTags] }));
    if (r) {
      setDone(`${s.mind.entityName} now knows ${s.newTags.join(", ")}.`);
      onApplied();
    }
  };
  return (
    <section aria-labelledby="suggest-title" class="card">
      <h3 id="suggest-title">What each character should know</h3>
      <p class="muted">From the scenes each character speaks in (rejected scenes left out): the project tags to give its Entity Mind as knowledge tags.</p>
      <ErrorBox error={act.error} />
      {done && (
        <p class="ok" role="status" data-testid="suggestion-applied">
          {done}
        </p>
      )}
      {suggestions.length === 0 && <p class="muted">No speaking characters in the scenes still in play.</p>}
      <table class="list compact">
        <thead>
          <tr>
            <th>Character</th>
            <th>Scenes</th>
            <th>Suggested tags</th>
            <th>Places</th>
            <th>Entity Mind</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((s) => (
            <tr data-testid="suggestion">
              <td>
                <strong>{s.speaker}</strong>
              </td>
              <td>{s.scenes}</td>
              <td>
                {s.tags.map((t: any) => (
                  <span class={`chip ${t.known ? "on" : ""}`} title={t.known ? "the mind knows it already" : t.exists ? `${t.scenes} scene(s)` : "not a project tag: create it first"}>
                    {t.known ? "✓ " : ""}
                    {t.tag}
                    {!t.exists && " (no such tag)"}
                  </span>
                ))}
                {s.tags.length === 0 && <span class="muted">none</span>}
              </td>
              <td>{s.locations.map((l: any) => l.location).join(", ") || <span class="muted">—</span>}</td>
              <td class="actions">
                {s.mind ? (
                  <>
                    <Link href={`/p/${projectId}/minds/${s.mind.id}`}>{s.mind.entityName}</Link>{" "}
                    {s.newTags.length > 0 ? (
                      <button type="button" class="small primary" disabled={act.busy} onClick={() => apply(s)}>
                        Add {s.newTags.length} tag(s) to {s.mind.entityName}
                      </button>
                    ) : (
                      <span class="muted">knows them all</span>
                    )}
                  </>
                ) : (
                  // A plain hash link: wouter's <Link> would move the query out of the hash, where the editor reads it.
                  <a href={`#${newMindHref(projectId, s.speaker, s.newTags)}`}>Create a mind for {s.speaker}</a>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length < ordered.length && (
        <button type="button" class="small" onClick={() => setAll(true)}>
          Show all {ordered.length} characters
        </button>
      )}
    </section>
  );
}
