// The owner's usage as CSV (DESIGN §9.3): the rows GET …/usage?groupBy= answered, as they are. A
// cell a spreadsheet would run as a formula (an API user named "=HYPERLINK(…)") is quoted with a
// leading apostrophe, the usual defence; every cell is quoted as RFC 4180 says.
export interface UsageRow {
  key: string | null;
  replies: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

const HEADERS = { day: 'date', model: 'model', endUser: 'end user' } as const;

const cell = (v: string | number) => {
  const s = String(v);
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return `"${safe.replace(/"/g, '""')}"`;
};

export function usageCsv(groupBy: keyof typeof HEADERS, rows: UsageRow[]): string {
  const lines = [[HEADERS[groupBy], 'replies', 'prompt tokens', 'completion tokens', 'cost (USD)'].map(cell).join(',')];
  for (const r of rows)
    lines.push([r.key ?? 'unknown', r.replies, r.promptTokens, r.completionTokens, r.costUsd].map(cell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
