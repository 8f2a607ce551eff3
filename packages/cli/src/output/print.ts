// Results on stdout: only JSON with --json (DESIGN.md §3), otherwise short human text.
import { io } from '../io.js';
import type { DeploymentRecord, StatusView } from '../api/client.js';

export function printJson(value: unknown): void {
  io().stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function printTable(rows: string[][]): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const row of rows)
    io().stdout.write(
      `${row
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
}

export function printDeployments(list: DeploymentRecord[]): void {
  if (!list.length) {
    io().stdout.write('No assistants yet. Buy one with: berth assistants buy --mode byok\n');
    return;
  }
  printTable([
    ['ID', 'NAME', 'STATUS', 'MODE', 'MODEL', 'UPDATED'],
    ...list.map((d) => [
      d.id,
      d.name || '-',
      d.status,
      d.apiMode,
      d.modelId ? `${d.modelProvider}/${d.modelId}` : '-',
      d.updatedAt,
    ]),
  ]);
}

export function printDeployment(d: DeploymentRecord): void {
  const lines: [string, string | null | boolean][] = [
    ['id', d.id],
    ['name', d.name],
    ['status', d.status],
    ['status message', d.statusMessage],
    ['mode', d.apiMode],
    ['model', d.modelId ? `${d.modelProvider}/${d.modelId}` : null],
    ['channel', d.channelType],
    ['worker', d.workerName],
    ['worker url', d.workerUrl],
    ['payment', d.paymentStatus],
    ['period ends', d.currentPeriodEnd],
    ['canceled', d.canceledAt],
    ['callback url', d.userCallbackUrl],
    ['created', d.createdAt],
    ['updated', d.updatedAt],
  ];
  for (const [label, value] of lines) io().stdout.write(`${`${label}:`.padEnd(16)}${value ?? '-'}\n`);
}

export function printStatus(s: StatusView): void {
  io().stdout.write(`${s.id}  ${s.status}${s.statusMessage ? `  ${s.statusMessage}` : ''}\n`);
}
