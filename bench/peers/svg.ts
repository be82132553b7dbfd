// A grouped bar chart as a plain SVG string: one panel per failure, a group per dialect, a bar per
// client; a bar is solid when its client ended with a 200 and faded when it did not.

/** One bar: its value, whether the run ended well, and a tooltip. */
export interface Bar {
  readonly value: number;
  readonly ok: boolean;
  readonly note?: string;
}

/** A panel: a title and its groups of bars, one bar per series in series order. */
export interface Panel {
  readonly title: string;
  readonly groups: readonly { readonly label: string; readonly bars: readonly Bar[] }[];
}

/** The chart. */
export interface BarChart {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly string[];
  readonly panels: readonly Panel[];
}

/** Okabe-Ito colours, distinguishable with the common colour-vision deficiencies. */
export const COLOURS = ['#E69F00', '#56B4E9', '#009E73', '#CC79A7', '#0072B2', '#D55E00', '#F0E442', '#000000'] as const;

/** Text and attribute values with XML's five special characters escaped. */
export const escapeXml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

const n = (x: number): string => String(Math.round(x * 100) / 100);

/** The smallest whole axis top at or above `max`, and its tick step. */
export function axis(max: number): { top: number; step: number } {
  const step = max <= 10 ? 1 : Math.ceil(max / 5);
  return { top: Math.max(step, Math.ceil(max / step) * step), step };
}

const WIDTH = 820;
const LEFT = 64;
const RIGHT = 16;
const PLOT_HEIGHT = 170;
const PANEL_HEIGHT = PLOT_HEIGHT + 100;
const TOP = 84;

function text(x: number, y: number, content: string, attrs = ''): string {
  return `<text x="${n(x)}" y="${n(y)}"${attrs ? ` ${attrs}` : ''}>${escapeXml(content)}</text>`;
}

function legend(series: readonly string[]): string[] {
  const out: string[] = [];
  let x = LEFT;
  series.forEach((name, i) => {
    out.push(`<rect x="${n(x)}" y="44" width="12" height="12" fill="${COLOURS[i % COLOURS.length]}"/>`, text(x + 17, 54, name));
    x += 30 + name.length * 7;
  });
  out.push(text(LEFT, 74, 'solid: the client ended with a 200; faded: it ended with an error or a timeout', 'fill="#555"'));
  return out;
}

function panel(chart: BarChart, p: Panel, top: number, yTop: number, step: number): string[] {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const base = top + 34 + PLOT_HEIGHT;
  const out: string[] = [text(LEFT, top + 14, p.title, 'font-weight="bold"')];
  for (let v = 0; v <= yTop; v += step) {
    const y = base - (v / yTop) * PLOT_HEIGHT;
    out.push(`<line x1="${LEFT}" y1="${n(y)}" x2="${WIDTH - RIGHT}" y2="${n(y)}" stroke="#ddd"/>`, text(LEFT - 6, y + 4, String(v), 'text-anchor="end"'));
  }
  const groupWidth = plotWidth / Math.max(1, p.groups.length);
  const barWidth = (groupWidth * 0.8) / Math.max(1, chart.series.length);
  p.groups.forEach((g, gi) => {
    const gx = LEFT + gi * groupWidth + groupWidth * 0.1;
    g.bars.forEach((b, bi) => {
      const h = (b.value / yTop) * PLOT_HEIGHT;
      const x = gx + bi * barWidth;
      const colour = COLOURS[bi % COLOURS.length];
      const look = b.ok ? `fill="${colour}"` : `fill="${colour}" fill-opacity="0.3" stroke="${colour}"`;
      const tip = `${chart.series[bi] ?? ''}: ${b.value}${b.note ? `, ${b.note}` : ''}`;
      out.push(
        `<rect class="bar" data-value="${b.value}" x="${n(x + 1)}" y="${n(base - h)}" width="${n(barWidth - 2)}" height="${n(h)}" ${look}><title>${escapeXml(tip)}</title></rect>`,
        text(x + barWidth / 2, base - h - 4, String(b.value), 'text-anchor="middle" font-size="10"'),
      );
    });
    out.push(text(gx + groupWidth * 0.4, base + 16, g.label, 'text-anchor="middle"'));
  });
  out.push(
    `<line x1="${LEFT}" y1="${n(base)}" x2="${WIDTH - RIGHT}" y2="${n(base)}" stroke="#333"/>`,
    text(LEFT + plotWidth / 2, base + 36, chart.xLabel, 'text-anchor="middle" fill="#333"'),
    text(16, base - PLOT_HEIGHT / 2, chart.yLabel, `text-anchor="middle" fill="#333" transform="rotate(-90 16 ${n(base - PLOT_HEIGHT / 2)})"`),
  );
  return out;
}

/** The chart as a standalone SVG document; every panel shares one y axis so bars compare across panels. */
export function barChartSvg(chart: BarChart): string {
  const max = Math.max(0, ...chart.panels.flatMap((p) => p.groups.flatMap((g) => g.bars.map((b) => b.value))));
  const { top: yTop, step } = axis(max);
  const height = TOP + chart.panels.length * PANEL_HEIGHT;
  const body = [
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    text(LEFT, 26, chart.title, 'font-size="15" font-weight="bold"'),
    ...legend(chart.series),
    ...chart.panels.flatMap((p, i) => panel(chart, p, TOP + i * PANEL_HEIGHT, yTop, step)),
  ];
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(chart.title)}" font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">`,
    `<title>${escapeXml(chart.title)}</title>`,
    ...body.map((line) => `  ${line}`),
    '</svg>',
    '',
  ].join('\n');
}
