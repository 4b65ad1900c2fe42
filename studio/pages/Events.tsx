import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { ErrorBox, Field, fmtDate, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

const LEVELS = ["silent", "discreet", "normal", "chatty", "town-crier"];

/** The events log (filters), who knows an event now and through whom, and sending an event as the game would. */
export function Events({ projectId }: SectionProps) {
  const base = `/projects/${projectId}`;
  const [filter, setFilter] = useState({ type: "", playerId: "", mindId: "" });
  const [open, setOpen] = useState<string | null>(null);
  const query = new URLSearchParams(Object.entries(filter).filter(([, v]) => v) as [string, string][]).toString();
  const log = useAsync(() => admin("GET", `${base}/events${query ? `?${query}` : ""}`), [projectId, query]);
  const minds = useAsync(() => admin<{ minds: { id: string; entityName: string }[] }>("GET", `${base}/minds`), [projectId]);
  const locations = useAsync(() => admin("GET", `${base}/locations`), [projectId]);
  const name = (id: string) => minds.data?.minds.find((m) => m.id === id)?.entityName ?? id;
  const set = (k: keyof typeof filter) => (e: Event) => setFilter({ ...filter, [k]: (e.target as HTMLInputElement).value });
  return (
    <section aria-labelledby="events-title">
      <h1 id="events-title">Events</h1>
      <SendEvent projectId={projectId} minds={minds.data?.minds ?? []} locations={locations.data?.locations ?? []} onSent={log.reload} />
      <form class="row card" role="search" onSubmit={(e) => e.preventDefault()}>
        <Field label="Type">
          <input value={filter.type} onInput={set("type")} />
        </Field>
        <Field label="Player">
          <input value={filter.playerId} onInput={set("playerId")} />
        </Field>
        <Field label="Mind">
          <select value={filter.mindId} onChange={set("mindId")}>
            <option value="">any</option>
            {minds.data?.minds.map((m) => <option value={m.id}>{m.entityName}</option>)}
          </select>
        </Field>
      </form>
      <ErrorBox error={log.error} />
      <p class="muted">{log.data ? `${log.data.total} events` : ""}</p>
      <ul class="plain" data-testid="events-log">
        {log.data?.events.map((e: any) => (
          <li class="card" data-testid="event">
            <div class="row">
              <strong class="grow">
                {e.type}: {e.description}
              </strong>
              <span class="muted">{e.at ?? fmtDate(e.createdAt)}</span>
              <button type="button" class="small" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                Who knows
              </button>
            </div>
            <p class="muted">
              importance {e.importance} · {e.witnesses.length} witnesses{e.playerId ? ` · about player ${e.playerId}` : ""}
              {e.secret ? " · secret" : ""}
            </p>
            {open === e.id && <WhoKnows projectId={projectId} eventId={e.id} name={name} />}
          </li>
        ))}
      </ul>
      <GossipLevels projectId={projectId} minds={minds.data?.minds ?? []} />
    </section>
  );
}

function WhoKnows({ projectId, eventId, name }: { projectId: string; eventId: string; name: (id: string) => string }) {
  const who = useAsync(() => admin("GET", `/projects/${projectId}/events/${eventId}`), [projectId, eventId]);
  return (
    <div data-testid="who-knows">
      <ErrorBox error={who.error} />
      <ul>
        {who.data?.knowers.map((k: any) => (
          <li data-testid="knower">
            <strong>{k.name}</strong> {k.hop === 0 ? "saw it" : `heard it: ${k.path.map(name).join(" → ")}`} · importance {k.importance} ·{" "}
            {k.knowsNow ? `knows since ${fmtDate(k.knownAt)}` : `will know at ${fmtDate(k.knownAt)}`}
          </li>
        ))}
      </ul>
    </div>
  );
}

function SendEvent({ projectId, minds, locations, onSent }: { projectId: string; minds: { id: string; entityName: string }[]; locations: { id: string; name: string }[]; onSent: () => void }) {
  const empty = { type: "", description: "", location: "", byLocation: false, witnesses: [] as string[], playerId: "", importance: 5, secret: false };
  const [ev, setEv] = useState(empty);
  const act = useAction();
  const send = async (e: Event) => {
    e.preventDefault();
    const body: Record<string, unknown> = { type: ev.type, description: ev.description, importance: ev.importance };
    if (ev.location) body.location = ev.location;
    if (ev.byLocation) body.witnesses = "location";
    else if (ev.witnesses.length) body.witnesses = ev.witnesses;
    if (ev.playerId) body.playerId = ev.playerId;
    if (ev.secret) body.secret = true;
    if (await act.run(() => admin("POST", `/projects/${projectId}/events`, body))) {
      setEv(empty);
      onSent();
    }
  };
  return (
    <form class="card" onSubmit={send} aria-label="Send an event">
      <h2>Send an event</h2>
      <ErrorBox error={act.error} />
      <div class="row">
        <Field label="Event type">
          <input required maxLength={64} pattern="[A-Za-z0-9][A-Za-z0-9_.:\-]*" value={ev.type} onInput={(e) => setEv({ ...ev, type: (e.target as HTMLInputElement).value })} />
        </Field>
        <Field label="Importance">
          <input type="number" min={1} max={10} value={ev.importance} onInput={(e) => setEv({ ...ev, importance: Number((e.target as HTMLInputElement).value) })} />
        </Field>
        <Field label="Player (optional)">
          <input maxLength={255} value={ev.playerId} onInput={(e) => setEv({ ...ev, playerId: (e.target as HTMLInputElement).value })} />
        </Field>
        <Field label="Location">
          <select value={ev.location} onChange={(e) => setEv({ ...ev, location: (e.target as HTMLSelectElement).value })}>
            <option value="">none</option>
            {locations.map((l) => <option value={l.id}>{l.name}</option>)}
          </select>
        </Field>
      </div>
      <Field label="What happened">
        <textarea required maxLength={500} value={ev.description} onInput={(e) => setEv({ ...ev, description: (e.target as HTMLTextAreaElement).value })} />
      </Field>
      <div class="row">
        <label>
          <input type="checkbox" checked={ev.byLocation} onChange={(e) => setEv({ ...ev, byLocation: (e.target as HTMLInputElement).checked })} /> everyone at the location saw it
        </label>
        <label>
          <input type="checkbox" checked={ev.secret} onChange={(e) => setEv({ ...ev, secret: (e.target as HTMLInputElement).checked })} /> secret (never gossiped)
        </label>
      </div>
      {!ev.byLocation && (
        <fieldset class="row">
          <legend>Witnesses</legend>
          {minds.map((m) => (
            <label>
              <input
                type="checkbox"
                checked={ev.witnesses.includes(m.id)}
                onChange={(e) => setEv({ ...ev, witnesses: (e.target as HTMLInputElement).checked ? [...ev.witnesses, m.id] : ev.witnesses.filter((w) => w !== m.id) })}
              />{" "}
              {m.entityName}
            </label>
          ))}
        </fieldset>
      )}
      <button type="submit" class="primary">
        Send event
      </button>
    </form>
  );
}

function GossipLevels({ projectId, minds }: { projectId: string; minds: { id: string; entityName: string }[] }) {
  const levels = useAsync(() => Promise.all(minds.map((m) => admin("GET", `/projects/${projectId}/minds/${m.id}/gossip`))), [projectId, minds.length]);
  const act = useAction();
  const change = async (mindId: string, level: string) => {
    if (await act.run(() => admin("PUT", `/projects/${projectId}/minds/${mindId}/gossip`, { level }))) levels.reload();
  };
  return (
    <div class="card">
      <h2>Gossip</h2>
      <p class="muted">How readily each mind passes on what it knows (along its relationships).</p>
      <ErrorBox error={act.error ?? levels.error} />
      <ul class="plain">
        {minds.map((m, i) => (
          <li class="row">
            <span class="grow">{m.entityName}</span>
            <select aria-label={`Gossip level of ${m.entityName}`} value={levels.data?.[i]?.level ?? "normal"} onChange={(e) => change(m.id, (e.target as HTMLSelectElement).value)}>
              {LEVELS.map((l) => <option value={l}>{l}</option>)}
            </select>
          </li>
        ))}
      </ul>
    </div>
  );
}
