import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * Daily counts as bars (uPlot: small, canvas, no injected styles). The same numbers are in a
 * table beside it for screen readers and for anyone who wants them exact.
 */
export function Histogram({ days, counts, label }: { days: string[]; counts: number[]; label: string }) {
  const holder = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!holder.current) return;
    const xs = days.map((day) => Date.parse(day + 'T00:00:00Z') / 1000);
    const plot = new uPlot(
      {
        width: Math.max(320, holder.current.clientWidth),
        height: 220,
        legend: { show: false },
        scales: { x: { time: true } },
        series: [
          {},
          {
            label,
            fill: 'rgba(37, 99, 235, 0.6)',
            stroke: 'rgb(29, 78, 216)',
            paths: uPlot.paths.bars!({ size: [0.8, 40] }),
            points: { show: false },
          },
        ],
        axes: [{}, { label: 'certificates' }],
      },
      [xs, counts],
      holder.current,
    );
    return () => plot.destroy();
  }, [days, counts, label]);
  return <div ref={holder} className="chart" role="img" aria-label={label} />;
}
