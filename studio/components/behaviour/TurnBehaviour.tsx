import { useRef, useState } from "preact/hooks";

/** metadata.behaviour of one NPC turn, as interact returns it */
export interface TurnBehaviourData {
  emotion: { name: string; intensity: number };
  actions: { id: string; name: string; params: Record<string, unknown> }[];
  trust?: { value: number; delta: number; label: string | null } | null;
}
export type ActionStatus = "completed" | "failed" | "aborted";
export interface ActionResult {
  id: string;
  status: ActionStatus;
  detail?: string;
}

/**
 * The results the writer reports for the actions NPC turns returned: kept until the next line is sent, which
 * carries them as `actionResults` (as a game would report what became of an action it ran).
 */
export function useActionResults() {
  const [results, setResults] = useState<Record<string, ActionResult>>({});
  const [sent, setSent] = useState<Record<string, ActionResult>>({});
  const ref = useRef(results);
  ref.current = results;
  const report = (r: ActionResult | { id: string; status: "" }) =>
    setResults((cur) => {
      const next = { ...cur };
      if (r.status === "") delete next[r.id];
      else next[r.id] = r as ActionResult;
      return next;
    });
  /** the results to send with this line (then they count as sent) */
  const take = (): ActionResult[] => {
    const out = Object.values(ref.current);
    if (out.length) {
      setSent((s) => ({ ...s, ...Object.fromEntries(out.map((r) => [r.id, r])) }));
      setResults({});
    }
    return out;
  };
  return { results, sent, report, take };
}

const fmtParams = (p: Record<string, unknown>) =>
  Object.entries(p)
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");

/** What the mind did this turn, beside its words: emotion, actions (each with the writer's result), trust. */
export function TurnBehaviour({ b, index, results }: { b: TurnBehaviourData; index: number; results: ReturnType<typeof useActionResults> }) {
  const t = b.trust;
  return (
    <div class="behaviour-turn" data-testid={`behaviour-${index}`} aria-label={`What the mind did in turn ${index + 1}`}>
      <p data-testid={`emotion-${index}`}>
        <strong>Emotion</strong> {b.emotion.name} <span class="muted">({Math.round(b.emotion.intensity * 100)}%)</span>
        {t && (
          <>
            {" "}
            · <strong>Trust</strong>{" "}
            <span data-testid={`trust-${index}`}>
              {t.value} ({t.delta >= 0 ? `+${t.delta}` : t.delta}
              {t.label ? `, ${t.label}` : ""})
            </span>
          </>
        )}
      </p>
      {b.actions.length === 0 ? (
        <p class="muted">No action.</p>
      ) : (
        <ul data-testid={`actions-${index}`}>
          {b.actions.map((a) => {
            const sent = results.sent[a.id];
            const cur = results.results[a.id];
            return (
              <li>
                <strong>{a.name}</strong> <span class="params">{fmtParams(a.params)}</span> <span class="muted mono">{a.id}</span>{" "}
                {sent ? (
                  <span class="badge" data-testid={`sent-${a.id}`}>
                    reported {sent.status}
                  </span>
                ) : (
                  <select
                    aria-label={`Result of ${a.name} (${a.id})`}
                    value={cur?.status ?? ""}
                    onChange={(e) => results.report({ id: a.id, status: (e.target as HTMLSelectElement).value as ActionStatus | "" })}
                  >
                    <option value="">no result yet</option>
                    <option value="completed">completed</option>
                    <option value="failed">failed</option>
                    <option value="aborted">aborted</option>
                  </select>
                )}
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}

/** The pending results, shown above the line they will go with. */
export function PendingResults({ results }: { results: ReturnType<typeof useActionResults> }) {
  const list = Object.values(results.results);
  if (!list.length) return null;
  return (
    <p class="muted" data-testid="pending-results">
      Sent with your next line: {list.map((r) => `${r.id} ${r.status}`).join(", ")}
    </p>
  );
}
