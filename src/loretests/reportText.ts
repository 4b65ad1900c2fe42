import { formatRate } from "./junit.ts";
import type { CaseOutcome, SuiteSummary } from "./runSuite.ts";
import type { compareRuns, runView } from "./loreTestService.ts";

const BAR = 24;

/** One progress line per finished case: a bar, the count, the verdict and the case. */
export function progressLine(o: CaseOutcome, done: number, total: number, elapsedMs: number): string {
  const filled = Math.round((done / total) * BAR);
  return `[${"#".repeat(filled)}${".".repeat(BAR - filled)}] ${done}/${total} ${o.passed ? "pass" : "FAIL"}  ${o.name} (${(elapsedMs / 1000).toFixed(1)} s)`;
}

/** The results as a table, then each failed check, then the verdict line. */
export function summaryTable(run: ReturnType<typeof runView>, s: SuiteSummary): string {
  const rows = s.cases.map((c) => [c.passed ? "pass" : "FAIL", c.mindName, `${Math.round(c.passRate * c.runs.length)}/${c.runs.length}`, formatRate(c.requiredRate), c.name]);
  const head = ["", "mind", "runs", "needs", "case"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((x, i) => (i === r.length - 1 ? x : x.padEnd(widths[i]))).join("  ");
  const out = [line(head), ...rows.map(line)];
  const failed = s.cases.filter((c) => !c.passed);
  if (failed.length) {
    out.push("", "Failures:");
    for (const c of failed) {
      out.push(`  ${c.name} (${c.source})`);
      for (const r of c.runs) {
        if (r.error) out.push(`    run ${r.run + 1}: ${r.error}`);
        r.turns.forEach((t, i) => {
          for (const x of t.checks) if (!x.pass) out.push(`    run ${r.run + 1} turn ${i + 1}: ${x.check}: ${x.detail}`);
          if (!t.passed) out.push(`      reply: ${JSON.stringify(t.reply.slice(0, 200))}`);
        });
      }
    }
  }
  out.push(
    "",
    `${s.passed} passed, ${s.failed} failed — run ${run.id} (model ${run.model ?? "?"}, lore ${run.loreRevision ?? "?"}, prompt ${run.promptVersion ?? "?"}) in ${(s.wallMs / 1000).toFixed(1)} s, ${(s.generateMs / 1000).toFixed(1)} s generating`,
  );
  return out.join("\n");
}

export function compareText(d: ReturnType<typeof compareRuns>): string {
  const out = [`${d.a.id} (${d.a.model}) → ${d.b.id} (${d.b.model}): ${d.changed.length} changed, ${d.unchanged} unchanged`];
  for (const c of d.changed) {
    out.push("", `${c.direction === "fixed" ? "FIXED" : "BROKE"}  ${c.name}`);
    for (const [label, side] of [["A", c.a], ["B", c.b]] as const) {
      const r = side.runs.find((x) => x.passed !== side.passed) ?? side.runs[0];
      out.push(`  ${label}: ${side.passed ? "pass" : "fail"} (${formatRate(side.passRate)})`);
      r?.turns.forEach((t, i) => {
        out.push(`    turn ${i + 1}: ${JSON.stringify(t.reply.slice(0, 200))}`);
        out.push(`      lore: ${t.trace.lore.map((l) => `${l.documentName}#${l.chunkIndex}`).join(", ") || "none"}`);
        for (const x of t.checks) if (!x.pass) out.push(`      ${x.check}: ${x.detail}`);
      });
      if (r?.error) out.push(`    ${r.error}`);
    }
  }
  if (d.onlyInA.length) out.push("", `only in ${d.a.id}: ${d.onlyInA.join(", ")}`);
  if (d.onlyInB.length) out.push("", `only in ${d.b.id}: ${d.onlyInB.join(", ")}`);
  return out.join("\n");
}
