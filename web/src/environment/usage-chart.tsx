/**
 * A chart of the Usage tab: values over equal time intervals drawn by uPlot on a canvas, in the
 * colours of the page's scheme, as wide as its container, with the values under the cursor in a
 * legend. It is the only module that imports uPlot, and the Usage tab is loaded on demand, so the
 * library stays out of the portal's first JavaScript.
 */
import { useComputedColorScheme } from '@mantine/core';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './usage.css';

/** One line of a chart: a value per interval (null where there is none, which breaks the line). */
export interface UsageSeries {
  readonly label: string;
  /** A custom property of usage.css holding the line's colour, which differs between schemes. */
  readonly colorVar: string;
  readonly values: readonly (number | null)[];
}

const HEIGHT = 200;

/**
 * `series` over `times` (each interval's start, in seconds since the epoch) as a line chart. The
 * canvas is one image for screen readers, named by `summary`; the page shows the numbers as text.
 * `max` fixes the top of the scale (1 for a ratio); by default it fits the largest value.
 */
export function UsageChart(props: {
  title: string;
  summary: string;
  times: readonly number[];
  series: readonly UsageSeries[];
  format: (value: number) => string;
  /** An axis label: short, for where the ticks fall. */
  formatTick: (date: Date) => string;
  /** The time under the cursor, in the legend. */
  formatTime: (date: Date) => string;
  max?: number;
  /** Fills the area under a single line. */
  area?: boolean;
  /** Said over the chart when no interval has a value (a ratio of nothing). */
  empty?: string;
}) {
  const plotBox = useRef<HTMLDivElement>(null);
  const legendBox = useRef<HTMLDivElement>(null);
  const chart = useRef<uPlot | null>(null);
  // The options read the newest props through this, so new data needs no new chart.
  const latest = useRef(props);
  latest.current = props;
  const scheme = useComputedColorScheme('light');
  const shape = props.series.map((s) => `${s.label}:${s.colorVar}`).join('|');

  // A new chart when the scheme (its colours are on the canvas) or the lines change.
  useEffect(() => {
    const box = plotBox.current;
    const legend = legendBox.current;
    if (box === null || legend === null) return;
    const colors = readColors(box, [
      '--usage-axis',
      '--usage-grid',
      ...latest.current.series.map((s) => s.colorVar),
    ]);
    const [axis = 'gray', grid = 'silver', ...lines] = colors;
    const area = latest.current.area === true && latest.current.series.length === 1;
    const yAxisSize = (self: uPlot, values: string[] | null) =>
      // Wide enough for the longest tick label ("1023.9 KB"), measured in the axis font.
      values === null ? 40 : Math.ceil(Math.max(0, ...values.map((v) => measure(self, v)))) + 16;
    const plot = new uPlot(
      {
        width: Math.max(box.clientWidth, 200),
        height: HEIGHT,
        legend: {
          live: true,
          mount: (_self, table) => {
            legend.replaceChildren(table);
          },
        },
        cursor: { drag: { x: false, y: false }, points: { size: 7 } },
        scales: {
          x: { time: true },
          y: {
            range: (_self, _min, dataMax) => {
              const top = latest.current.max ?? niceTop(dataMax);
              return [0, top];
            },
          },
        },
        axes: [
          {
            stroke: axis,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            values: (_self, splits) => splits.map((s) => latest.current.formatTick(new Date(s * 1000))),
            space: 80,
          },
          {
            stroke: axis,
            grid: { stroke: grid, width: 1 },
            ticks: { show: false },
            values: (_self, splits) => splits.map((v) => latest.current.format(v)),
            size: yAxisSize,
            space: 40,
          },
        ],
        series: [
          {
            label: 'Time',
            // Null while the cursor is off the chart (uPlot's types say number).
            value: (_self, v: number | null) =>
              v === null ? '—' : latest.current.formatTime(new Date(v * 1000)),
          },
          ...latest.current.series.map((s, i) => ({
            label: s.label,
            stroke: lines[i] ?? axis,
            width: 2,
            fill: area ? withAlpha(lines[i] ?? axis, 0.15) : undefined,
            points: { size: 5 },
            value: (_self: uPlot, v: number | null) => (v === null ? '—' : latest.current.format(v)),
          })),
        ],
      },
      dataOf(latest.current),
      box,
    );
    chart.current = plot;
    const observer = new ResizeObserver(([entry]) => {
      const width = Math.floor(entry?.contentRect.width ?? 0);
      if (width > 0 && width !== plot.width) plot.setSize({ width, height: HEIGHT });
    });
    observer.observe(box);
    return () => {
      observer.disconnect();
      plot.destroy();
      chart.current = null;
    };
  }, [scheme, shape]);

  // New values (a refresh that counted more, another period) are drawn into the chart in place.
  useEffect(() => {
    chart.current?.setData(dataOf(props));
  }, [props.times, props.series, props.max]);

  const titleId = `chart-${props.title.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <figure className="usage-chart" aria-labelledby={titleId}>
      <figcaption id={titleId} className="usage-chart-title">
        {props.title}
      </figcaption>
      <div className="usage-chart-box">
        <div ref={plotBox} role="img" aria-label={props.summary} className="usage-chart-plot" />
        {props.empty !== undefined && props.series.every((s) => s.values.every((v) => v === null)) && (
          <p className="usage-chart-empty" aria-hidden="true">
            {props.empty}
          </p>
        )}
      </div>
      {/* The values under the cursor, for sighted mouse users; the totals above say the same in text. */}
      <div ref={legendBox} className="usage-chart-legend" aria-hidden="true" />
    </figure>
  );
}

/** The props' values as uPlot takes them: the x values, then one array per line. */
function dataOf(props: { times: readonly number[]; series: readonly UsageSeries[] }): uPlot.AlignedData {
  return [[...props.times], ...props.series.map((s) => [...s.values])];
}

/** A round top for the scale a little above `max`: 1, 2 or 5 times a power of ten (1 at least). */
function niceTop(max: number | null): number {
  if (max === null || max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max) ?? 10;
  return step * power;
}

/**
 * The colours of custom properties as the canvas needs them (`rgb(…)`): a probe element resolves
 * each one, whatever var() or colour function the scheme's stylesheet writes it with.
 */
function readColors(inside: HTMLElement, properties: readonly string[]): string[] {
  const probe = document.createElement('span');
  probe.hidden = true;
  inside.append(probe);
  const colors = properties.map((property) => {
    probe.style.color = `var(${property})`;
    return getComputedStyle(probe).color;
  });
  probe.remove();
  return colors;
}

/** `rgb(r, g, b)` as `rgba(r, g, b, alpha)`, for an area's fill under its line. */
function withAlpha(color: string, alpha: number): string {
  const parts = /^rgba?\(([^)]+)\)$/.exec(color)?.[1]?.split(',').slice(0, 3);
  return parts === undefined ? color : `rgba(${parts.join(',')}, ${String(alpha)})`;
}

/** The width of a tick label in the chart's axis font, in CSS pixels. */
function measure(self: uPlot, text: string): number {
  const context = self.ctx;
  context.save();
  context.font = `${String(12 * devicePixelRatio)}px system-ui, sans-serif`;
  const width = context.measureText(text).width / devicePixelRatio;
  context.restore();
  return width;
}
