// The model catalog with prices (GET /api/v1/catalog/models): `berth assistants models`, and the
// picker `activate` offers when --model is left out (a numbered list on a terminal; elsewhere the
// list on stderr and a usage error, so a script learns the choices).
import { io } from '../io.js';
import { createInterface } from 'node:readline/promises';
import type { CatalogModel } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { stdinIsTty } from '../input/prompt.js';
import { printJson, printTable } from '../output/print.js';
import type { Ctx } from './context.js';

const price = (m: CatalogModel) =>
  m.pricing ? `$${m.pricing.prompt} / $${m.pricing.completion}` : 'billed by the provider';

function rows(list: CatalogModel[], numbered: boolean): string[][] {
  return [
    [...(numbered ? ['#'] : []), 'PROVIDER', 'MODEL', 'PRICE PER 1M TOKENS (IN / OUT)', 'MODES'],
    ...list.map((m, i) => [...(numbered ? [String(i + 1)] : []), m.provider, m.id, price(m), m.modes.join(',')]),
  ];
}

async function forMode(ctx: Ctx, mode: string | undefined): Promise<CatalogModel[]> {
  const all = await ctx.client().catalog();
  return mode ? all.filter((m) => m.modes.some((x) => x === mode)) : all;
}

export async function modelsCommand(ctx: Ctx, mode: string | undefined): Promise<number> {
  const list = await forMode(ctx, mode);
  if (ctx.json) printJson(list);
  else printTable(rows(list, false));
  return 0;
}

/** The model for an activation in `mode`: chosen by number on a terminal. */
export async function pickModel(ctx: Ctx, mode: string): Promise<{ model: string; provider: string }> {
  const list = await forMode(ctx, mode);
  const table = rows(list, true)
    .map((r) => r.join('  '))
    .join('\n');
  if (!stdinIsTty()) {
    throw new UsageError(`berth assistants activate needs --model; the catalog offers for ${mode}:\n${table}`);
  }
  io().stderr.write(`${table}\n`);
  const rl = createInterface({ input: io().stdin, output: io().stderr, terminal: true });
  try {
    for (;;) {
      const n = Number((await rl.question(`Model number (1-${list.length}): `)).trim());
      const m = list[n - 1];
      if (Number.isInteger(n) && m) return { model: m.id, provider: m.provider };
    }
  } finally {
    rl.close();
  }
}
