import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { HttpError } from "../api.ts";

/** Loads data; `reload` fetches again. Errors are kept for display. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: unknown; loading: boolean; reload: () => Promise<void>; setData: (t: T) => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const seq = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++seq.current;
    setLoading(true);
    try {
      const d = await load();
      if (mine === seq.current) {
        setData(d);
        setError(null);
      }
    } catch (e) {
      if (mine === seq.current) setError(e);
    } finally {
      if (mine === seq.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    reload();
  }, [reload]);
  return { data, error, loading, reload, setData };
}

/** Runs an action, keeping its error (and busy state) for the form that started it. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, setError };
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof HttpError ? error : null;
  return (
    <div class="error" role="alert">
      <strong>{e ? `${e.message}` : String((error as Error)?.message ?? error)}</strong>
      {e && e.detail.length > 0 && (
        <ul>
          {e.detail.map((d) => (
            <li>{d}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function Field({ label, children, hint }: { label: string; children: ComponentChildren; hint?: string }) {
  return (
    <label class="field">
      <span class="label">{label}</span>
      {children}
      {hint && <small class="hint">{hint}</small>}
    </label>
  );
}

/** An in-page confirmation (the native <dialog>: focus trapped, Escape cancels). */
export function Confirm({ open, title, body, confirmLabel = "Confirm", danger = true, onConfirm, onCancel }: {
  open: boolean;
  title: string;
  body: ComponentChildren;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} onCancel={(e) => (e.preventDefault(), onCancel())} aria-labelledby="confirm-title">
      <h2 id="confirm-title">{title}</h2>
      <div>{body}</div>
      <div class="row end">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class={danger ? "danger" : "primary"} onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Choose names from a list: a filter box and checkboxes (keyboard friendly). */
export function TagPicker({ all, value, onChange, label }: { all: string[]; value: string[]; onChange: (v: string[]) => void; label: string }) {
  const [q, setQ] = useState("");
  const shown = all.filter((t) => t.toLowerCase().includes(q.toLowerCase()));
  const toggle = (t: string) => onChange(value.includes(t) ? value.filter((x) => x !== t) : [...value, t]);
  return (
    <fieldset class="tagpicker">
      <legend>{label}</legend>
      <input type="search" placeholder="Filter tags" aria-label={`Filter ${label}`} value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
      <div class="tags">
        {shown.map((t) => (
          <label class={`chip ${value.includes(t) ? "on" : ""}`}>
            <input type="checkbox" checked={value.includes(t)} onChange={() => toggle(t)} />
            {t}
          </label>
        ))}
        {shown.length === 0 && <small>No tags match.</small>}
      </div>
    </fieldset>
  );
}

export const fmtDate = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");
export const fmtNum = (n: number | null | undefined, digits = 2) => (n === null || n === undefined ? "—" : Number(n.toFixed(digits)).toLocaleString());

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge s-${status.toLowerCase()}`}>{status}</span>;
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p class="muted" aria-live="polite">
      {what}…
    </p>
  );
}

/** Download text as a file (export buttons). */
export function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
