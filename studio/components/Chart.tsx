import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { useEffect, useRef } from "preact/hooks";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

/** A time-series line chart (uPlot). `times` are seconds since the epoch. */
export function Chart({ title, times, series, height = 200 }: { title: string; times: number[]; series: ChartSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = Math.max(300, el.clientWidth || 560);
    const plot = new uPlot(
      {
        title,
        width,
        height,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, spanGaps: false, points: { show: true, size: 4 } }))],
        // small values (credits) keep their significant digits instead of rounding to 0
        axes: [{}, { size: 64, values: (_u: uPlot, vals: number[]) => vals.map((v) => (v == null ? "" : String(+v.toPrecision(3)))) }],
        scales: { x: { time: true } },
      },
      [times, ...series.map((s) => s.values)] as uPlot.AlignedData,
      el,
    );
    return () => plot.destroy();
  }, [title, times, series, height]);
  return <div class="chart" ref={box} role="img" aria-label={title} />;
}
