import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface BarSeries {
  label: string;
  values: number[];
  /** CSS colour of the bars. */
  colour: string;
}

/**
 * Daily counts as bars (uPlot: small, canvas, no injected styles); several series draw as nested
 * bars. The chart's label says what it shows; the numbers behind it are the linked lists.
 */
export function Histogram({ days, series, label }: { days: string[]; series: BarSeries[]; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const xs = days.map((day) => Date.parse(day + 'T00:00:00Z') / 1000);
    const plot = new uPlot(
      {
        width: Math.max(320, Math.min(960, holder.current.clientWidth)),
        height: 200,
        legend: { show: series.length > 1 },
        scales: { x: { time: true } },
        series: [
          {},
          ...series.map((one, index) => ({
            label: one.label,
            fill: one.colour,
            stroke: one.colour,
            // Later series draw narrower on top of earlier ones, so every series stays visible.
            paths: uPlot.paths.bars!({ size: [0.8 - index * 0.25, 40] }),
            points: { show: false },
          })),
        ],
        axes: [{}, {}],
      },
      [xs, ...series.map((one) => one.values)],
      holder.current,
    );
    return () => plot.destroy();
  }, [days, series, label]);
  return <div ref={holder} className="chart" role="img" aria-label={label} />;
}
