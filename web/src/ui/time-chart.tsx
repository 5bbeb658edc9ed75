/** The portal's only chart component, an SVG line chart: no chart library to bundle or audit. */

/** One line of a chart: a value per interval (null where there is none, which breaks the line). */
export interface ChartSeries {
  readonly label: string;
  readonly color: string;
  readonly values: readonly (number | null)[];
}

const WIDTH = 400;
const HEIGHT = 150;
const LEFT = 56;
const RIGHT = 8;
const TOP = 10;
const BOTTOM = 24;

/**
 * A small line chart of values over equal time intervals, drawn as SVG. The picture is one image
 * for screen readers, named by `summary`; the page shows the same numbers as text beside it.
 */
export function TimeChart(props: {
  title: string;
  summary: string;
  series: readonly ChartSeries[];
  /** Under the first and the last interval. */
  startLabel: string;
  endLabel: string;
  format: (value: number) => string;
  /** The top of the scale; by default the largest value (at least 1). */
  max?: number;
}) {
  const count = Math.max(0, ...props.series.map((s) => s.values.length));
  const known = props.series.flatMap((s) => s.values.filter((v) => v !== null));
  const largest = Math.max(0, ...known);
  const top = props.max ?? Math.max(1, largest);
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const x = (i: number) => LEFT + (count <= 1 ? plotWidth / 2 : (i * plotWidth) / (count - 1));
  const y = (v: number) => TOP + plotHeight - (Math.min(v, top) / top) * plotHeight;

  return (
    <figure className="chart">
      <figcaption>{props.title}</figcaption>
      <svg role="img" aria-label={props.summary} viewBox={`0 0 ${String(WIDTH)} ${String(HEIGHT)}`}>
        <line className="axis" x1={LEFT} x2={WIDTH - RIGHT} y1={y(0)} y2={y(0)} />
        <line className="grid" x1={LEFT} x2={WIDTH - RIGHT} y1={y(top)} y2={y(top)} />
        <text x={LEFT - 6} y={y(top) + 4} textAnchor="end">
          {props.format(top)}
        </text>
        <text x={LEFT - 6} y={y(0) + 4} textAnchor="end">
          {props.format(0)}
        </text>
        <text x={LEFT} y={HEIGHT - 6}>
          {props.startLabel}
        </text>
        <text x={WIDTH - RIGHT} y={HEIGHT - 6} textAnchor="end">
          {props.endLabel}
        </text>
        {known.length === 0 && (
          <text x={LEFT + plotWidth / 2} y={TOP + plotHeight / 2} textAnchor="middle">
            No values in this period
          </text>
        )}
        {props.series.map((s) =>
          segments(s.values).map((segment) =>
            segment.length === 1 ? (
              <circle
                key={`${s.label}-${String(segment[0]?.[0])}`}
                cx={x(segment[0]?.[0] ?? 0)}
                cy={y(segment[0]?.[1] ?? 0)}
                r={2.5}
                fill={s.color}
              />
            ) : (
              <polyline
                key={`${s.label}-${String(segment[0]?.[0])}`}
                points={segment.map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
                fill="none"
                stroke={s.color}
                strokeWidth={2}
                strokeLinejoin="round"
              />
            ),
          ),
        )}
      </svg>
      {props.series.length > 1 && (
        <ul className="legend" aria-hidden="true">
          {props.series.map((s) => (
            <li key={s.label}>
              <span className="swatch" style={{ background: s.color }} /> {s.label}
            </li>
          ))}
        </ul>
      )}
    </figure>
  );
}

/** The runs of consecutive known values, as [index, value] pairs. */
function segments(values: readonly (number | null)[]): [number, number][][] {
  const runs: [number, number][][] = [];
  let run: [number, number][] = [];
  values.forEach((value, i) => {
    if (value === null) {
      if (run.length > 0) runs.push(run);
      run = [];
    } else run.push([i, value]);
  });
  if (run.length > 0) runs.push(run);
  return runs;
}
