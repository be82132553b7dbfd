// The peer bench's chart: a well-formed SVG document whose bar heights are proportional to the calls.
import { describe, expect, it } from 'vitest';
import { axis, barChartSvg, escapeXml, type BarChart } from '../../bench/peers/svg.js';

/** Problems that keep `xml` from being well-formed: unbalanced tags, a raw `<` or `&` in text or attributes. */
function xmlProblems(xml: string): string[] {
  const problems: string[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"]*")*)\s*(\/?)>/g;
  const rawAmp = /&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/;
  let last = 0;
  for (const m of xml.matchAll(tag)) {
    const between = xml.slice(last, m.index);
    if (between.includes('<') || between.includes('>') || rawAmp.test(between)) problems.push(`bad text before offset ${m.index}: ${between.trim().slice(0, 40)}`);
    const [, close, name, attrs, selfClose] = m as unknown as [string, string, string, string, string];
    if (rawAmp.test(attrs) || attrs.includes('<')) problems.push(`bad attribute in <${name}>`);
    if (close) {
      if (stack.pop() !== name) problems.push(`</${name}> closes nothing open`);
    } else if (!selfClose) stack.push(name);
    last = m.index + m[0].length;
  }
  const tail = xml.slice(last);
  if (tail.includes('<') || tail.includes('>') || rawAmp.test(tail)) problems.push('bad text at the end');
  if (stack.length) problems.push(`unclosed: ${stack.join(', ')}`);
  return problems;
}

/** Every bar's value and drawn height. */
const bars = (svg: string) =>
  [...svg.matchAll(/<rect class="bar" data-value="([\d.]+)"[^>]* height="([\d.]+)"([^>]*)>/g)].map((m) => ({
    value: Number(m[1]),
    height: Number(m[2]),
    faded: m[3]!.includes('fill-opacity'),
  }));

const chart = (over: Partial<BarChart> = {}): BarChart => ({
  title: 'Calls per dialect',
  xLabel: 'dialect',
  yLabel: 'calls',
  series: ['ky', 'got', 'ours'],
  panels: [
    { title: 'rate limited', groups: [{ label: 'problem', bars: [{ value: 2, ok: true }, { value: 3, ok: false }, { value: 0, ok: false }] }, { label: 'vague', bars: [{ value: 7, ok: false }, { value: 12, ok: false }, { value: 1, ok: true }] }] },
    { title: 'maintenance', groups: [{ label: 'problem', bars: [{ value: 5, ok: true }, { value: 4, ok: true }, { value: 2, ok: true }] }] },
  ],
  ...over,
});

describe('the well-formedness check the chart tests rely on', () => {
  it.each([
    ['<svg><g></svg>', 'an unclosed tag'],
    ['<svg><text>a & b</text></svg>', 'a raw ampersand'],
    ['<svg><text>a < b</text></svg>', 'a raw less-than'],
    ['<svg><rect title="<b>"/></svg>', 'a less-than in an attribute'],
  ])('rejects %s (%s)', (xml) => {
    expect(xmlProblems(xml)).not.toEqual([]);
  });

  it('accepts entities and self-closing tags', () => {
    expect(xmlProblems('<svg><rect x="1"/><text>a &amp; b &lt;c&gt;</text></svg>')).toEqual([]);
  });
});

describe('barChartSvg', () => {
  it('writes one well-formed svg document with the SVG namespace', () => {
    const svg = barChartSvg(chart());
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(xmlProblems(svg)).toEqual([]);
  });

  it('draws one bar per series per group per panel, each as tall as its value on one shared scale', () => {
    const drawn = bars(barChartSvg(chart()));
    expect(drawn.map((b) => b.value)).toEqual([2, 3, 0, 7, 12, 1, 5, 4, 2]);
    expect(drawn.find((b) => b.value === 0)!.height).toBe(0);
    const perCall = drawn.filter((b) => b.value > 0).map((b) => b.height / b.value);
    for (const ratio of perCall) expect(ratio).toBeCloseTo(perCall[0]!, 1);
    expect(perCall[0]).toBeGreaterThan(0);
  });

  it('fades exactly the bars of runs that did not end with a 200', () => {
    expect(bars(barChartSvg(chart())).map((b) => b.faded)).toEqual([false, true, true, true, true, false, false, false, false]);
  });

  it('escapes every label: title, axes, series, panels, groups and notes', () => {
    const svg = barChartSvg(
      chart({
        title: 'a <title> & "more"',
        xLabel: "x's",
        yLabel: 'y > 0',
        series: ['<script>alert(1)</script>', 'got', 'ours'],
        panels: [{ title: 'A & B', groups: [{ label: '<g>', bars: [{ value: 1, ok: true, note: '</title><b>' }, { value: 1, ok: true }, { value: 1, ok: true }] }] }],
      }),
    );
    expect(xmlProblems(svg)).toEqual([]);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(svg).toContain('a &lt;title&gt; &amp; &quot;more&quot;');
    expect(svg).toContain('x&apos;s');
    expect(svg).toContain('&lt;/title&gt;&lt;b&gt;');
  });

  it('still draws an empty axis when every value is zero', () => {
    const svg = barChartSvg(chart({ panels: [{ title: 'p', groups: [{ label: 'g', bars: [{ value: 0, ok: false }] }] }] }));
    expect(xmlProblems(svg)).toEqual([]);
    expect(bars(svg)).toEqual([{ value: 0, height: 0, faded: true }]);
  });
});

describe('axis and escapeXml', () => {
  it.each([
    [0, 1, 1],
    [6, 6, 1],
    [10, 10, 1],
    [11, 12, 3],
    [23, 25, 5],
  ])('a largest value of %i gets an axis to %i in steps of %i', (max, top, step) => {
    expect(axis(max)).toEqual({ top, step });
  });

  it('escapes the five XML special characters and nothing else', () => {
    expect(escapeXml(`<a href="x">'&'</a> ok`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt; ok');
  });
});
