import { useEffect, useState } from "preact/hooks";
import { admin } from "../api.ts";

export type StateValue = boolean | number | string;
export interface StateRow {
  key: string;
  value: string;
}

/** A typed value from what the author typed: true/false, a number, else text (as the state API stores them). */
export function typedValue(s: string): StateValue {
  const t = s.trim();
  if (t === "true") return true;
  if (t === "false") return false;
  if (t !== "" && Number.isFinite(Number(t))) return Number(t);
  return s;
}

export function rowsToState(rows: StateRow[]): Record<string, StateValue> {
  return Object.fromEntries(rows.filter((r) => r.key.trim()).map((r) => [r.key.trim(), typedValue(r.value)]));
}

/** Key/value rows (world or player state); values typed as the state API reads them. */
export function StateRows({ label, rows, onChange }: { label: string; rows: StateRow[]; onChange: (rows: StateRow[]) => void }) {
  const set = (i: number, patch: Partial<StateRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class="state-rows" aria-label={label}>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div class="row">
          <input aria-label={`${label} key ${i + 1}`} placeholder="quest.flood.stage" value={r.key} onInput={(e) => set(i, { key: (e.target as HTMLInputElement).value })} />
          <input aria-label={`${label} value ${i + 1}`} placeholder="true, 2 or text" value={r.value} onInput={(e) => set(i, { value: (e.target as HTMLInputElement).value })} />
          <button type="button" aria-label={`Remove ${label} row ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { key: "", value: "" }])}>
        Add key
      </button>
    </fieldset>
  );
}

/**
 * A condition's text with its problems shown as the author types (the project's declared keys checked by the
 * server, after a short pause): the same checks a save applies.
 */
export function ConditionInput({ projectId, label, value, onInput, placeholder }: { projectId: string; label: string; value: string; onInput: (v: string) => void; placeholder?: string }) {
  const [problems, setProblems] = useState<string[]>([]);
  useEffect(() => {
    if (!value.trim()) return setProblems([]);
    let live = true;
    const t = setTimeout(() => {
      admin<{ problems: { message: string }[] }>("POST", `/projects/${projectId}/conditions/check`, { condition: value }).then(
        (r) => live && setProblems(r.problems.map((p) => p.message)),
        () => {},
      );
    }, 300);
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [value, projectId]);
  return (
    <span class="condition">
      <input
        class="mono"
        aria-label={label}
        aria-invalid={problems.length > 0}
        placeholder={placeholder ?? "quest.flood.stage >= 2"}
        value={value}
        onInput={(e) => onInput((e.target as HTMLInputElement).value)}
      />
      {problems.length > 0 && (
        <ul class="condition-problems" role="alert" data-testid="condition-problems">
          {problems.map((p) => (
            <li>{p}</li>
          ))}
        </ul>
      )}
    </span>
  );
}

export interface WhenLine {
  text: string;
  when: string;
}

/** Rows of {text, when}: conditional hints, restrictions or knowledge (text = a tag). */
export function WhenRows({ projectId, label, textLabel, rows, onChange }: { projectId: string; label: string; textLabel: string; rows: WhenLine[]; onChange: (rows: WhenLine[]) => void }) {
  const set = (i: number, patch: Partial<WhenLine>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <fieldset class="when-rows" aria-label={label}>
      <legend>{label}</legend>
      {rows.map((r, i) => (
        <div class="row">
          <input class="grow" aria-label={`${label} ${textLabel} ${i + 1}`} placeholder={textLabel} value={r.text} onInput={(e) => set(i, { text: (e.target as HTMLInputElement).value })} />
          <span class="muted">when</span>
          <ConditionInput projectId={projectId} label={`${label} condition ${i + 1}`} value={r.when} onInput={(v) => set(i, { when: v })} />
          <button type="button" aria-label={`Remove ${label} row ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))}>
            ×
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...rows, { text: "", when: "" }])}>
        Add
      </button>
    </fieldset>
  );
}
