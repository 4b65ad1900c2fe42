/**
 * The mind editor's behaviour form and the `behaviour` JSON the admin API takes, both ways. The form keeps every
 * input as the writer typed it (strings), so a half-typed number is never lost; the JSON leaves out what is empty,
 * so the server's defaults apply and a saved behaviour reads back as authored.
 */

export type ParamKind = "text" | "choice" | "integer" | "boolean" | "ref";
export interface ParamForm {
  name: string;
  kind: ParamKind;
  description: string;
  maxLength: string;
  values: string;
  minimum: string;
  maximum: string;
  ref: "mind" | "location" | "item";
}
export interface ActionForm {
  name: string;
  description: string;
  cooldownTurns: string;
  maxPerTurn: string;
  when: string;
  params: ParamForm[];
}
export interface BehaviourForm {
  enabled: boolean;
  emotions: string;
  maxActionsPerTurn: string;
  /** the action gate's threshold, as typed (empty: the server's default) */
  actionGate: string;
  actions: ActionForm[];
  trustEnabled: boolean;
  trustMin: string;
  trustMax: string;
  trustInitial: string;
  trustMaxStep: string;
  /** one threshold a line: `5 friendly` */
  trustLabels: string;
}

export const emptyParam = (): ParamForm => ({ name: "", kind: "text", description: "", maxLength: "60", values: "", minimum: "", maximum: "", ref: "item" });
export const emptyAction = (): ActionForm => ({ name: "", description: "", cooldownTurns: "", maxPerTurn: "", when: "", params: [] });
export const emptyBehaviour = (): BehaviourForm => ({
  enabled: false,
  emotions: "",
  maxActionsPerTurn: "",
  actionGate: "",
  actions: [],
  trustEnabled: false,
  trustMin: "",
  trustMax: "",
  trustInitial: "",
  trustMaxStep: "",
  trustLabels: "",
});

const str = (n: unknown) => (n === undefined || n === null ? "" : String(n));
const list = (s: string) => s.split(/[,\n]/).map((x) => x.trim()).filter(Boolean);
/** a number when the writer typed one, else the text itself, so the server names the problem by its path */
const num = (s: string): number | string | undefined => (s.trim() === "" ? undefined : Number.isFinite(Number(s)) ? Number(s) : s);
const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;

function paramToForm(name: string, p: any): ParamForm {
  const base = { ...emptyParam(), name, description: str(p.description) };
  if (p.type === "integer") return { ...base, kind: "integer", minimum: str(p.minimum), maximum: str(p.maximum) };
  if (p.type === "boolean") return { ...base, kind: "boolean" };
  if (p["x-ref"]) return { ...base, kind: "ref", ref: p["x-ref"] };
  if (Array.isArray(p.enum)) return { ...base, kind: "choice", values: p.enum.join(", ") };
  return { ...base, kind: "text", maxLength: str(p.maxLength) };
}

export function toForm(b: any): BehaviourForm {
  if (!b) return emptyBehaviour();
  const t = b.trust;
  return {
    enabled: true,
    emotions: (b.emotions ?? []).join(", "),
    maxActionsPerTurn: str(b.maxActionsPerTurn),
    actionGate: str(b.actionGate),
    actions: (b.actions ?? []).map((a: any) => ({
      name: a.name,
      description: a.description ?? "",
      cooldownTurns: str(a.cooldownTurns),
      maxPerTurn: str(a.maxPerTurn),
      when: a.when ?? "",
      params: Object.entries(a.params?.properties ?? {}).map(([n, p]) => paramToForm(n, p)),
    })),
    trustEnabled: !!t && t.enabled !== false,
    trustMin: str(t?.min),
    trustMax: str(t?.max),
    trustInitial: str(t?.initial),
    trustMaxStep: str(t?.maxStep),
    trustLabels: (t?.labels ?? []).map((l: any) => `${l.min} ${l.label}`).join("\n"),
  };
}

function paramToJson(p: ParamForm): Record<string, unknown> {
  const description = p.description.trim() || undefined;
  switch (p.kind) {
    case "integer":
      return defined({ type: "integer", minimum: num(p.minimum), maximum: num(p.maximum), description });
    case "boolean":
      return defined({ type: "boolean", description });
    case "ref":
      return defined({ type: "string", "x-ref": p.ref, description });
    case "choice":
      return defined({ type: "string", enum: list(p.values), description });
    default:
      return defined({ type: "string", maxLength: num(p.maxLength), description });
  }
}

function labelsToJson(s: string): { min: number | string; label: string }[] | undefined {
  const rows = s.split("\n").map((l) => l.trim()).filter(Boolean);
  if (!rows.length) return undefined;
  return rows.map((r) => {
    const m = /^(-?\d+)\s+(.+)$/.exec(r);
    return m ? { min: Number(m[1]), label: m[2].trim() } : { min: r, label: "" };
  });
}

/** The `behaviour` field to send: null removes it. */
export function toJson(f: BehaviourForm): Record<string, unknown> | null {
  if (!f.enabled) return null;
  const emotions = list(f.emotions);
  return defined({
    emotions: emotions.length ? emotions : undefined,
    maxActionsPerTurn: num(f.maxActionsPerTurn),
    actionGate: num(f.actionGate),
    actions: f.actions.map((a) =>
      defined({
        name: a.name.trim(),
        description: a.description,
        params: a.params.length ? { type: "object", properties: Object.fromEntries(a.params.map((p) => [p.name.trim(), paramToJson(p)])) } : undefined,
        cooldownTurns: num(a.cooldownTurns),
        maxPerTurn: num(a.maxPerTurn),
        when: a.when.trim() || undefined,
      }),
    ),
    trust: f.trustEnabled
      ? defined({ min: num(f.trustMin), max: num(f.trustMax), initial: num(f.trustInitial), maxStep: num(f.trustMaxStep), labels: labelsToJson(f.trustLabels) })
      : undefined,
  });
}

/**
 * The server's problems ("behaviour.actions.1.params.properties.n.minimum: …", "behaviour.emotions[1]: …") under a
 * path of the form: the ones at that path or below it, without the path, for display beside the field.
 */
export function problemsAt(problems: string[], path: string): string[] {
  const out: string[] = [];
  for (const p of problems) {
    const i = p.indexOf(": ");
    if (i < 0) continue;
    const at = p.slice(0, i).replace(/\[(\d+)\]/g, ".$1");
    if (at === path || at.startsWith(`${path}.`)) out.push(at === path ? p.slice(i + 2) : `${at.slice(path.length + 1)}: ${p.slice(i + 2)}`);
  }
  return out;
}
