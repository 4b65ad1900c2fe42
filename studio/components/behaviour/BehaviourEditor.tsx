import type { ComponentChildren } from "preact";
import { Field } from "../ui.tsx";
import { emptyAction, emptyParam, problemsAt, type ActionForm, type BehaviourForm, type ParamForm, type ParamKind } from "./behaviourForm.ts";

const KINDS: [ParamKind, string][] = [
  ["text", "text"],
  ["choice", "choice (enum)"],
  ["integer", "integer"],
  ["boolean", "yes/no"],
  ["ref", "reference"],
];

/** The server's problems for one field, beside it. */
function Problems({ list, testId }: { list: string[]; testId?: string }) {
  if (!list.length) return null;
  return (
    <ul class="field-problems" role="alert" data-testid={testId}>
      {list.map((p) => (
        <li>{p}</li>
      ))}
    </ul>
  );
}

const val = (e: Event) => (e.target as HTMLInputElement).value;

/** One typed parameter of an action: its name, kind and the kind's own settings. */
function ParamRow({ p, onChange, onRemove, problems, label }: { p: ParamForm; onChange: (p: ParamForm) => void; onRemove: () => void; problems: string[]; label: string }) {
  const set = (k: keyof ParamForm) => (e: Event) => onChange({ ...p, [k]: val(e) });
  return (
    <div class="param" role="group" aria-label={label}>
      <div class="row wrap">
        <Field label="Parameter">
          <input value={p.name} maxLength={64} placeholder="item" onInput={set("name")} />
        </Field>
        <Field label="Type">
          <select value={p.kind} onChange={set("kind")}>
            {KINDS.map(([k, l]) => (
              <option value={k}>{l}</option>
            ))}
          </select>
        </Field>
        {p.kind === "text" && (
          <Field label="Max length">
            <input type="number" min={1} max={200} value={p.maxLength} onInput={set("maxLength")} />
          </Field>
        )}
        {p.kind === "choice" && (
          <Field label="Values" hint="comma separated">
            <input value={p.values} onInput={set("values")} />
          </Field>
        )}
        {p.kind === "integer" && (
          <>
            <Field label="Minimum">
              <input type="number" value={p.minimum} onInput={set("minimum")} />
            </Field>
            <Field label="Maximum">
              <input type="number" value={p.maximum} onInput={set("maximum")} />
            </Field>
          </>
        )}
        {p.kind === "ref" && (
          <Field label="Refers to">
            <select value={p.ref} onChange={set("ref")}>
              <option value="mind">a mind</option>
              <option value="location">a location</option>
              <option value="item">an item (lore tagged items)</option>
            </select>
          </Field>
        )}
        <Field label="Parameter description">
          <input value={p.description} maxLength={500} onInput={set("description")} />
        </Field>
        <button type="button" class="small danger" onClick={onRemove}>
          Remove parameter
        </button>
      </div>
      <Problems list={problems} />
    </div>
  );
}

function ActionCard({ a, i, onChange, onRemove, problems }: { a: ActionForm; i: number; onChange: (a: ActionForm) => void; onRemove: () => void; problems: string[] }) {
  const at = (path: string) => problemsAt(problems, `behaviour.actions.${i}${path}`);
  const set = (k: keyof ActionForm) => (e: Event) => onChange({ ...a, [k]: val(e) });
  const setParam = (j: number, p: ParamForm) => onChange({ ...a, params: a.params.map((x, k) => (k === j ? p : x)) });
  // A problem under params.properties.<name> belongs to the row of that name.
  const paramProblems = (p: ParamForm) => problemsAt(problems, `behaviour.actions.${i}.params.properties.${p.name.trim()}`);
  const otherParamProblems = at(".params").filter((x) => !a.params.some((p) => p.name.trim() && x.startsWith(`properties.${p.name.trim()}`)));
  return (
    <fieldset class="action" aria-label={`Action ${i + 1}`}>
      <legend>{a.name || `Action ${i + 1}`}</legend>
      <div class="row wrap">
        <Field label="Action name">
          <input value={a.name} maxLength={64} placeholder="give_item" onInput={set("name")} />
        </Field>
        <Field label="Cooldown (turns)">
          <input type="number" min={1} max={1000} value={a.cooldownTurns} onInput={set("cooldownTurns")} />
        </Field>
        <Field label="Max per turn">
          <input type="number" min={1} max={8} value={a.maxPerTurn} onInput={set("maxPerTurn")} />
        </Field>
      </div>
      <Problems list={[...at(".name"), ...at(".cooldownTurns"), ...at(".maxPerTurn")]} />
      <Field label="Action description" hint="the model reads it">
        <input value={a.description} maxLength={500} onInput={set("description")} />
      </Field>
      <Problems list={at(".description")} />
      <Field label="When" hint="a condition: offered only while it holds (e.g. trust >= 5)">
        <input value={a.when} maxLength={500} onInput={set("when")} />
      </Field>
      <Problems list={at(".when")} />
      {a.params.map((p, j) => (
        <ParamRow p={p} label={`Parameter ${j + 1} of ${a.name || `action ${i + 1}`}`} problems={paramProblems(p)} onChange={(np) => setParam(j, np)} onRemove={() => onChange({ ...a, params: a.params.filter((_, k) => k !== j) })} />
      ))}
      <Problems list={otherParamProblems} />
      <div class="row">
        <button type="button" class="small" onClick={() => onChange({ ...a, params: [...a.params, emptyParam()] })}>
          Add parameter
        </button>
        <span class="grow" />
        <button type="button" class="small danger" onClick={onRemove}>
          Remove action
        </button>
      </div>
    </fieldset>
  );
}

function Row({ children }: { children: ComponentChildren }) {
  return <div class="row wrap">{children}</div>;
}

/**
 * A mind's behaviour: the emotions it may show, its action catalogue with typed parameters, its trust. The
 * server's 400 problems (by path) show beside the fields they name.
 */
export function BehaviourEditor({ value, onChange, problems }: { value: BehaviourForm; onChange: (f: BehaviourForm) => void; problems: string[] }) {
  const f = value;
  const set = (k: keyof BehaviourForm) => (e: Event) => onChange({ ...f, [k]: val(e) });
  const check = (k: keyof BehaviourForm) => (e: Event) => onChange({ ...f, [k]: (e.target as HTMLInputElement).checked });
  const at = (path: string) => problemsAt(problems, `behaviour${path}`);
  return (
    <fieldset class="behaviour" aria-label="Behaviour">
      <legend>Behaviour</legend>
      <label class="inline">
        <input type="checkbox" checked={f.enabled} onChange={check("enabled")} /> Returns an emotion, actions and trust with each reply
      </label>
      {f.enabled && (
        <>
          <Row>
            <Field label="Emotions" hint="comma separated; empty: neutral, happy, sad, angry, afraid, surprised, disgusted">
              <input value={f.emotions} onInput={set("emotions")} />
            </Field>
            <Field label="Max actions per turn">
              <input type="number" min={1} max={8} value={f.maxActionsPerTurn} placeholder="3" onInput={set("maxActionsPerTurn")} />
            </Field>
            <Field label="Action gate" hint="how sure the model must be to act, above 0 up to 1; empty: the server's 0.9">
              <input type="number" min={0.01} max={1} step={0.05} value={f.actionGate} placeholder="0.9" onInput={set("actionGate")} />
            </Field>
          </Row>
          <Problems list={[...at(".emotions"), ...at(".maxActionsPerTurn"), ...at(".actionGate")]} />
          <h3>Actions</h3>
          {f.actions.map((a, i) => (
            <ActionCard
              a={a}
              i={i}
              problems={problems}
              onChange={(na) => onChange({ ...f, actions: f.actions.map((x, k) => (k === i ? na : x)) })}
              onRemove={() => onChange({ ...f, actions: f.actions.filter((_, k) => k !== i) })}
            />
          ))}
          {f.actions.length === 0 && <p class="muted">No actions: the mind returns an emotion (and trust) only.</p>}
          <Problems list={at(".actions").filter((p) => !/^\d/.test(p))} />
          <button type="button" class="small" onClick={() => onChange({ ...f, actions: [...f.actions, emptyAction()] })}>
            Add action
          </button>
          <h3>Trust</h3>
          <label class="inline">
            <input type="checkbox" checked={f.trustEnabled} onChange={check("trustEnabled")} /> Keeps a trust value per player
          </label>
          {f.trustEnabled && (
            <>
              <Row>
                <Field label="Trust min">
                  <input type="number" value={f.trustMin} placeholder="-10" onInput={set("trustMin")} />
                </Field>
                <Field label="Trust max">
                  <input type="number" value={f.trustMax} placeholder="10" onInput={set("trustMax")} />
                </Field>
                <Field label="Initial trust">
                  <input type="number" value={f.trustInitial} placeholder="0" onInput={set("trustInitial")} />
                </Field>
                <Field label="Max step per turn">
                  <input type="number" min={1} max={10} value={f.trustMaxStep} placeholder="2" onInput={set("trustMaxStep")} />
                </Field>
              </Row>
              <Field label="Trust labels" hint="one a line, ascending: the threshold then the label (e.g. 5 friendly); empty: defaults">
                <textarea rows={3} value={f.trustLabels} onInput={set("trustLabels")} />
              </Field>
              <Problems list={at(".trust")} testId="trust-problems" />
            </>
          )}
        </>
      )}
    </fieldset>
  );
}
