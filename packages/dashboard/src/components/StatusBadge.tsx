// A deployment's status as a word and a symbol, never colour alone.
const SYMBOL: Record<string, string> = {
  purchased: '○',
  deploying: '◐',
  active: '●',
  failed: '✕',
  stopped: '■',
};

export function StatusBadge({ status }: { status: string }) {
  return (
    <span className={`badge badge-${status}`}>
      <span aria-hidden="true">{SYMBOL[status] ?? '•'} </span>
      {status}
    </span>
  );
}

export function PaymentBadge({ status }: { status: string }) {
  return <span className={`badge pay-${status}`}>{status.replace('_', ' ')}</span>;
}
