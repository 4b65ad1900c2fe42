import type { CaseOutcome, SuiteSummary } from "./runSuite.ts";

/**
 * A run as JUnit XML (the format every CI reads): one <testsuite> per suite file, one <testcase> per case
 * (classname: the file and the mind), a <failure> listing each failed check of each failed run, an
 * <error> when a run could not run at all, and every reply in <system-out>.
 */
export function junitXml(summary: SuiteSummary, meta: { runId: string; model: string | null }): string {
  const byFile = new Map<string, CaseOutcome[]>();
  for (const c of summary.cases) {
    const file = c.source.replace(/#\d+$/, "");
    byFile.set(file, [...(byFile.get(file) ?? []), c]);
  }
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const caseMs = (c: CaseOutcome) => c.runs.reduce((s, r) => s + r.turns.reduce((t, x) => t + x.timing.generateMs, 0), 0);
  const isError = (c: CaseOutcome) => !c.passed && c.runs.every((r) => r.error !== undefined);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const failures = summary.cases.filter((c) => !c.passed && !isError(c)).length;
  const errors = summary.cases.filter(isError).length;
  out.push(`<testsuites name="lorehold lore tests" tests="${summary.cases.length}" failures="${failures}" errors="${errors}" time="${seconds(summary.wallMs)}">`);
  for (const [file, cases] of byFile) {
    const f = cases.filter((c) => !c.passed && !isError(c)).length;
    const e = cases.filter(isError).length;
    const time = cases.reduce((s, c) => s + caseMs(c), 0);
    out.push(`  <testsuite name="${esc(file)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="0" time="${seconds(time)}">`);
    out.push(`    <properties><property name="run" value="${esc(meta.runId)}"/><property name="model" value="${esc(meta.model ?? "")}"/></properties>`);
    for (const c of cases) {
      out.push(`    <testcase name="${esc(c.name)}" classname="${esc(`${file}.${c.mindName}`)}" time="${seconds(caseMs(c))}">`);
      if (isError(c)) {
        const msg = c.runs[0].error ?? "error";
        out.push(`      <error message="${esc(msg)}" type="error">${esc(c.runs.map((r) => `run ${r.run + 1}: ${r.error}`).join("\n"))}</error>`);
      } else if (!c.passed) {
        const msg = `passed ${Math.round(c.passRate * c.runs.length)} of ${c.runs.length} runs (needs ${formatRate(c.requiredRate)})`;
        out.push(`      <failure message="${esc(msg)}" type="expectation">${esc(failureText(c))}</failure>`);
      }
      out.push(`      <system-out>${esc(c.runs.map((r) => r.turns.map((t, i) => `run ${r.run + 1} turn ${i + 1}: ${t.reply}`).join("\n")).join("\n"))}</system-out>`);
      out.push("    </testcase>");
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}

function failureText(c: CaseOutcome): string {
  const lines: string[] = [];
  for (const r of c.runs) {
    if (r.error) lines.push(`run ${r.run + 1}: ${r.error}`);
    r.turns.forEach((t, i) => {
      for (const x of t.checks) if (!x.pass) lines.push(`run ${r.run + 1} turn ${i + 1}: ${x.check}: ${x.detail}`);
    });
  }
  return lines.join("\n");
}

export function formatRate(r: number): string {
  return `${Math.round(r * 100)}%`;
}

/** XML 1.0 text: the five entities, and no control characters (a model can sample any byte). */
function esc(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}
