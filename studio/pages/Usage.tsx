import { useState } from "preact/hooks";
import { admin } from "../api.ts";
import { Chart } from "../components/Chart.tsx";
import { ErrorBox, Field, fmtDate, fmtNum, Loading, useAction, useAsync } from "../components/ui.tsx";
import type { SectionProps } from "./ProjectShell.tsx";

/** Balance, plan and top-ups, the ledger, and charts of interactions, tokens, credits and latency. */
export function Usage({ projectId }: SectionProps) {
  const [range, setRange] = useState("24h");
  const usage = useAsync(() => admin("GET", `/projects/${projectId}/usage?range=${range}`), [projectId, range]);
  const credits = useAsync(() => admin("GET", `/projects/${projectId}/credits`), [projectId]);
  const ledger = useAsync(() => admin("GET", `/projects/${projectId}/ledger?limit=30`), [projectId]);
  const [topUp, setTopUp] = useState("");
  const [plan, setPlan] = useState("");
  const act = useAction();
  const s: any[] = usage.data?.series ?? [];
  const times = s.map((p) => Date.parse(p.t) / 1000);
  const col = (k: string) => s.map((p) => p[k]);
  const refresh = () => (credits.reload(), ledger.reload());
  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage and credits</h1>
      <ErrorBox error={act.error ?? credits.error} />
      {credits.data && (
        <div class="stats">
          <div class="stat">
            <span class="value">{fmtNum(credits.data.available)}</span>
            <span class="label">Available</span>
          </div>
          <div class="stat">
            <span class="value">{fmtNum(credits.data.allotmentRemaining)}</span>
            <span class="label">Left of {fmtNum(credits.data.monthlyAllotment)} this month</span>
          </div>
          <div class="stat">
            <span class="value">{fmtNum(credits.data.topUp)}</span>
            <span class="label">Top-up</span>
          </div>
        </div>
      )}
      <div class="row wrap">
        <form class="row card" onSubmit={async (e) => (e.preventDefault(), (await act.run(() => admin("POST", `/projects/${projectId}/credits/grant`, { credits: Number(topUp) }))) && (setTopUp(""), refresh()))}>
          <Field label="Add top-up credits">
            <input type="number" min={0} step="any" required value={topUp} onInput={(e) => setTopUp((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit">Grant</button>
        </form>
        <form class="row card" onSubmit={async (e) => (e.preventDefault(), (await act.run(() => admin("PUT", `/projects/${projectId}/credits/plan`, { monthly: Number(plan) }))) && (setPlan(""), refresh()))}>
          <Field label="Monthly allotment (plan)">
            <input type="number" min={0} step="any" required value={plan} onInput={(e) => setPlan((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit">Set plan</button>
        </form>
      </div>
      <div class="row">
        <h2 class="grow">Over time</h2>
        <Field label="Range">
          <select value={range} onChange={(e) => setRange((e.target as HTMLSelectElement).value)}>
            <option value="24h">last 24 hours (hourly)</option>
            <option value="7d">last 7 days (6-hourly)</option>
            <option value="30d">last 30 days (daily)</option>
          </select>
        </Field>
      </div>
      <ErrorBox error={usage.error} />
      {!usage.data && <Loading />}
      {usage.data && (
        <>
          <p class="muted">Tokens and latency cover {usage.data.sampled} interactions served since this server started; interactions and credits come from the ledger.</p>
          <div class="grid2" data-testid="usage-charts">
            <Chart title="Interactions" times={times} series={[{ label: "interactions", values: col("interactions"), color: "#7c5cff" }]} />
            <Chart title="Credits spent" times={times} series={[{ label: "credits", values: col("credits"), color: "#e0a100" }]} />
            <Chart
              title="Tokens"
              times={times}
              series={[
                { label: "prompt", values: col("promptTokens"), color: "#2a9d8f" },
                { label: "reply", values: col("completionTokens"), color: "#e76f51" },
              ]}
            />
            <Chart
              title="Latency (ms)"
              times={times}
              series={[
                { label: "first token", values: col("firstTokenMs"), color: "#264653" },
                { label: "generation", values: col("totalMs"), color: "#f4a261" },
              ]}
            />
          </div>
        </>
      )}
      <h2>Ledger</h2>
      <table class="list compact">
        <thead>
          <tr>
            <th>When</th>
            <th>Kind</th>
            <th>Bucket</th>
            <th>Credits</th>
            <th>Note</th>
          </tr>
        </thead>
        <tbody>
          {ledger.data?.movements.map((m: any) => (
            <tr>
              <td>{fmtDate(m.at)}</td>
              <td>{m.kind}</td>
              <td>{m.bucket}</td>
              <td class={m.credits < 0 ? "neg" : "pos"}>{fmtNum(m.credits, 6)}</td>
              <td>{m.note ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
