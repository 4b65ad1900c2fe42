/**
 * A small, strict parser of the Prometheus text exposition format (0.0.4):
 * `# HELP`, `# TYPE`, and `name{label="value",…} number` samples. Throws on
 * any line it does not understand, so a test that parses /metrics checks the
 * format as well as the values.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: "counter" | "gauge" | "histogram" | "summary" | "untyped";
  help: string;
  samples: Sample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+(-?\\d+))?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;
const SUFFIXES = ["_bucket", "_sum", "_count", "_total", "_created"];

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const family = (name: string) => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: "untyped", help: "", samples: [] }));
    return f;
  };
  text.split("\n").forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line.trim() === "") return;
    if (line.startsWith("#")) {
      const m = new RegExp(`^# (HELP|TYPE) (${NAME}) ?(.*)$`).exec(line);
      if (!m) {
        if (/^# (HELP|TYPE)/.test(line)) throw new Error(`bad comment, ${where}`);
        return; // other comments are allowed
      }
      const f = family(m[2]);
      if (m[1] === "HELP") f.help = m[3];
      else {
        if (!["counter", "gauge", "histogram", "summary", "untyped"].includes(m[3])) throw new Error(`bad TYPE, ${where}`);
        if (f.samples.length) throw new Error(`TYPE after samples, ${where}`);
        f.type = m[3] as MetricFamily["type"];
      }
      return;
    }
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`bad sample, ${where}`);
    const [, name, labelText, raw] = m;
    const value = raw === "+Inf" ? Infinity : raw === "-Inf" ? -Infinity : raw === "NaN" ? NaN : Number(raw);
    if (Number.isNaN(value) && raw !== "NaN") throw new Error(`bad value, ${where}`);
    const labels: Record<string, string> = {};
    if (labelText) {
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const l = LABEL.exec(labelText);
        if (!l) throw new Error(`bad labels, ${where}`);
        labels[l[1]] = l[2].replace(/\\n/g, "\n").replace(/\\"/g, '"').replace(/\\\\/g, "\\");
      }
    }
    const base = families.has(name) ? name : (SUFFIXES.map((s) => (name.endsWith(s) ? name.slice(0, -s.length) : "")).find((b) => b && families.has(b)) ?? name);
    family(base).samples.push({ name, labels, value });
  });
  return families;
}

/** The value of the one sample with exactly these labels (undefined when absent). */
export function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name !== name) continue;
      const keys = Object.keys(s.labels);
      if (keys.length === Object.keys(labels).length && keys.every((k) => s.labels[k] === labels[k])) return s.value;
    }
  }
  return undefined;
}
