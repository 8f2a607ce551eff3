export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function usd(n: number | null | undefined): string {
  return n === null || n === undefined ? 'no limit' : `$${n.toFixed(n < 1 ? 4 : 2)}`;
}
