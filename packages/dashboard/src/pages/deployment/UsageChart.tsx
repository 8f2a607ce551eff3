// The period's cost per day as plain SVG bars (no chart library: one series, a few dozen bars). The
// same numbers are in a table beside it, for screen readers and for anyone who wants the figures.
import { usd } from '../../components/format';

export interface UsageDay {
  date: string;
  replies: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
}

const W = 600;
const H = 160;

export function UsageChart({ days }: { days: UsageDay[] }) {
  if (!days.length) return <p className="muted">No replies yet this period.</p>;
  const max = Math.max(...days.map((d) => d.costUsd), 1e-9);
  const step = W / days.length;
  const bar = Math.min(40, Math.max(2, step * 0.7));
  return (
    <figure className="usage-chart">
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label="Cost per day this period" preserveAspectRatio="none">
        {days.map((d, i) => {
          const h = (d.costUsd / max) * H;
          return (
            <rect
              key={d.date}
              x={i * step + (step - bar) / 2}
              y={H - h}
              width={bar}
              height={Math.max(h, 1)}
              data-date={d.date}
              data-cost={d.costUsd}
              data-replies={d.replies}
            >
              <title>{`${d.date}: ${usd(d.costUsd)}, ${d.replies} replies`}</title>
            </rect>
          );
        })}
      </svg>
      <figcaption className="muted small">
        Cost per day from {days[0]!.date} to {days.at(-1)!.date}; the highest bar is {usd(max)}.
      </figcaption>
    </figure>
  );
}
