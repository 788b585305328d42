// Charts drawn on the server as inline SVG: no script, no chart library. Each has a <title> and a
// table of its numbers beside it (visually hidden where the chart already labels them), so it is
// readable by a screen reader and without images. Colours are the stylesheet's (classes), since the
// page's Content-Security-Policy allows no inline styles. A chart is 480 units wide (a radar 500)
// and shrinks with the page; its text is 18 units (19 on a radar), so that at its narrowest, a
// 360 px phone's 328 px, no label is smaller than 12 px (test/platform/web/readable-pages.test.ts).

import type { ComponentChildren } from 'preact';

/** A radar of scores 0-100 on named axes (the 7 traits), the first axis straight up. */
export function Radar({ title, scores }: { title: string; scores: Array<{ label: string; value: number }> }) {
  const size = 320;
  const centre = size / 2;
  const radius = 100;
  // Room beside the circle for the axis labels (the longest, "awareness" beside it, about 95 units).
  const margin = 90;
  const point = (index: number, value: number) => {
    const angle = (2 * Math.PI * index) / scores.length - Math.PI / 2;
    const r = (radius * value) / 100;
    return [centre + r * Math.cos(angle), centre + r * Math.sin(angle)] as const;
  };
  const id = `radar-${slug(title)}`;
  const polygon = (value: (index: number) => number) =>
    scores
      .map((_, i) =>
        point(i, value(i))
          .map((n) => n.toFixed(1))
          .join(','),
      )
      .join(' ');
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`${-margin} 0 ${size + 2 * margin} ${size}`}
        role="img"
        aria-labelledby={id}
        class="radar"
      >
        <title id={id}>{title}</title>
        {[25, 50, 75, 100].map((ring) => (
          <polygon key={ring} class="grid" points={polygon(() => ring)} />
        ))}
        {scores.map((score, i) => {
          const [x, y] = point(i, 100);
          const [lx, ly] = point(i, 122);
          return (
            <g key={score.label}>
              <line class="grid" x1={centre} y1={centre} x2={x} y2={y} />
              <text
                x={lx}
                y={ly}
                class="axis"
                text-anchor={Math.abs(lx - centre) < 5 ? 'middle' : lx > centre ? 'start' : 'end'}
                dominant-baseline="middle"
              >
                {score.label}
              </text>
            </g>
          );
        })}
        <polygon class="area" points={polygon((i) => scores[i]!.value)} />
      </svg>
      <NumbersTable
        caption={title}
        header={['trait', 'score (0-100)']}
        rows={scores.map((s) => [s.label, s.value])}
      />
    </figure>
  );
}

/**
 * Horizontal bars, one per row, longest = the largest value; the value is written at each bar's end.
 * A row with a `part` is drawn in that part's colour (class `part-<part>`: a type's own).
 */
export function Bars({
  title,
  rows,
  unit = '',
}: {
  title: string;
  rows: Array<{ label: string; value: number; note?: string; part?: string }>;
  unit?: string;
}) {
  const rowHeight = 34;
  const labelWidth = 170;
  const width = 480;
  const largest = Math.max(1, ...rows.map((r) => r.value));
  return (
    <Figure
      title={title}
      viewBox={`0 0 ${width} ${rows.length * rowHeight + 4}`}
      after={
        <NumbersTable
          caption={title}
          header={['', `value${unit ? ` (${unit.trim()})` : ''}`]}
          rows={rows.map((r) => [r.label, r.value])}
        />
      }
    >
      {rows.map((row, i) => {
        const length = ((width - labelWidth - 110) * row.value) / largest;
        const y = i * rowHeight + 4;
        return (
          <g key={row.label}>
            <text x={labelWidth - 8} y={y + 13} class="axis" text-anchor="end" dominant-baseline="middle">
              {shortLabel(row.label)}
            </text>
            <rect
              x={labelWidth}
              y={y}
              width={Math.max(length, 1)}
              height={rowHeight - 8}
              class={row.part ? `part-${row.part}` : 'bar'}
            />
            <text x={labelWidth + length + 6} y={y + 13} class="value" dominant-baseline="middle">
              {`${row.value}${unit}${row.note ? ` ${row.note}` : ''}`}
            </text>
          </g>
        );
      })}
    </Figure>
  );
}

/**
 * One horizontal bar per row, split into coloured parts (a model's bots by type), each part as long
 * as its share of the row; a legend names the colours (classes `part-<key>` in the stylesheet).
 */
export function StackedBars({
  title,
  keys,
  rows,
}: {
  title: string;
  keys: string[];
  rows: Array<{ label: string; parts: Record<string, number> }>;
}) {
  const rowHeight = 34;
  const labelWidth = 170;
  const width = 480;
  return (
    <Figure
      title={title}
      viewBox={`0 0 ${width} ${rows.length * rowHeight + 4}`}
      after={
        <ul class="legend">
          {keys.map((key) => (
            <li key={key}>
              <svg viewBox="0 0 10 10" width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" class={`part-${key}`} />
              </svg>{' '}
              {key}
            </li>
          ))}
        </ul>
      }
    >
      {rows.map((row, i) => {
        const total = keys.reduce((sum, key) => sum + (row.parts[key] ?? 0), 0);
        const y = i * rowHeight + 4;
        let x = labelWidth;
        return (
          <g key={row.label}>
            <text x={labelWidth - 8} y={y + 13} class="axis" text-anchor="end" dominant-baseline="middle">
              {shortLabel(row.label)}
            </text>
            {keys.map((key) => {
              const length = total === 0 ? 0 : ((width - labelWidth) * (row.parts[key] ?? 0)) / total;
              const part = (
                <rect key={key} x={x} y={y} width={length} height={rowHeight - 8} class={`part-${key}`} />
              );
              x += length;
              return part;
            })}
          </g>
        );
      })}
    </Figure>
  );
}

/** Columns over days (a time series), with the first and last day and the largest value marked. */
export function Columns({ title, days }: { title: string; days: Array<{ date: string; value: number }> }) {
  const width = 480;
  const height = 180;
  const bottom = height - 28;
  const largest = Math.max(1, ...days.map((d) => d.value));
  const step = (width - 56) / Math.max(days.length, 1);
  const id = `columns-${slug(title)}`;
  // Nothing to draw: said in words, not as an empty frame.
  if (days.every((day) => day.value === 0)) {
    return (
      <figure class="chart">
        <figcaption>{title}</figcaption>
        <p class="empty">None in these {days.length} days.</p>
      </figure>
    );
  }
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={id} class="columns">
        <title id={id}>{title}</title>
        <text x={0} y={16} class="axis">
          {String(largest)}
        </text>
        <line class="grid" x1={52} y1={bottom} x2={width} y2={bottom} />
        {days.map((day, i) => {
          const h = ((bottom - 20) * day.value) / largest;
          return (
            <rect
              key={day.date}
              x={56 + i * step + 1}
              y={bottom - h}
              width={Math.max(step - 2, 1)}
              height={h}
              class="bar"
            />
          );
        })}
        {days.length > 0 && (
          <>
            <text x={56} y={height - 6} class="axis">
              {days[0]!.date}
            </text>
            <text x={width} y={height - 6} class="axis" text-anchor="end">
              {days.at(-1)!.date}
            </text>
          </>
        )}
      </svg>
      <NumbersTable caption={title} header={['day', 'count']} rows={days.map((d) => [d.date, d.value])} />
    </figure>
  );
}

/** A chart's frame: the figure, its visible caption, the SVG (labelled by its <title>), and what follows it. */
function Figure({
  title,
  viewBox,
  after,
  children,
}: {
  title: string;
  viewBox: string;
  after: ComponentChildren;
  children: ComponentChildren;
}) {
  const id = `chart-${slug(title)}`;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={viewBox} role="img" aria-labelledby={id}>
        <title id={id}>{title}</title>
        {children}
      </svg>
      {after}
    </figure>
  );
}

function NumbersTable({
  caption,
  header,
  rows,
}: {
  caption: string;
  header: string[];
  rows: Array<Array<string | number>>;
}) {
  return (
    <details class="numbers">
      <summary>The numbers</summary>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {header.map((h) => (
              <th key={h} scope="col">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={String(row[0])}>
              {row.map((cell, i) => (i === 0 ? <th scope="row">{cell}</th> : <td>{cell}</td>))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** A row's label, cut to what fits beside its bar at 18 units (about 16 characters). */
function shortLabel(label: string): string {
  return label.length > 16 ? `${label.slice(0, 15)}…` : label;
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}
