// Prometheus text exposition 0.0.4, for the few families the agent has: no client library, whose
// registry and per-label objects an agent host would carry for a handful of numbers. The output is
// checked with `promtool check metrics` (test/metrics.test.ts).

export interface Family {
  /** A counter's name ends in _total. */
  name: string;
  help: string;
  type: 'counter' | 'gauge';
  samples: Array<{ labels?: Record<string, string>; value: number }>;
}

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const escapeHelp = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

function value(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Number.POSITIVE_INFINITY) return '+Inf';
  if (v === Number.NEGATIVE_INFINITY) return '-Inf';
  return String(v);
}

export function render(families: Family[]): string {
  let out = '';
  for (const f of families) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      const labels = s.labels
        ? `{${Object.entries(s.labels)
            .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
            .join(',')}}`
        : '';
      out += `${f.name}${labels} ${value(s.value)}\n`;
    }
  }
  return out;
}
