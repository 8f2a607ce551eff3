// berth assistants settings get|set|versions|rollback and berth assistants pair list|approve
// (DESIGN §7.1). `set` takes a whole document (--file, "-" for stdin) or changes the current one
// with --prompt/--access/--daily/--burst-ms; the server stores it as a new version and applies it live.
import { BURST_MS_MAX, DEFAULT_BURST_MS } from '@berth/contracts/settings';
import { io } from '../io.js';
import { readFileSync } from 'node:fs';
import type { Pairing, SettingsInput, SettingsVersion } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { readStdin } from '../input/prompt.js';
import { printJson, printTable } from '../output/print.js';
import { note, type Ctx } from './context.js';

export interface SettingsOpts {
  file?: string;
  prompt?: string;
  access?: string;
  daily?: string;
  'burst-ms'?: string;
  version?: string;
}

const ACCESS = ['open', 'allowlist', 'pairing'] as const;

function printSettings(v: SettingsVersion): void {
  const firstLine = v.systemPrompt.split('\n')[0]!;
  const lines: [string, string][] = [
    ['version', String(v.version)],
    ['updated', v.updatedAt],
    ['prompt', firstLine.length > 80 ? `${firstLine.slice(0, 77)}...` : firstLine],
    ['welcome', v.welcomeMessage ?? '-'],
    ['language', v.language],
    ['access', v.access.mode],
    ['allowed users', v.access.telegramUserIds.join(', ') || '-'],
    ['daily replies', v.access.perUserDailyReplies === null ? 'unlimited' : String(v.access.perUserDailyReplies)],
    ['groups', v.groups],
    ['history chars', String(v.historyChars)],
    // Absent from documents written before it (DESIGN §9.4): the agent's default is what runs.
    ['burst ms', v.burstMs === undefined ? `${DEFAULT_BURST_MS} (default)` : String(v.burstMs)],
    [
      'tools',
      Object.entries(v.tools)
        .filter(([, on]) => on)
        .map(([t]) => t)
        .join(', ') || '-',
    ],
  ];
  for (const [label, value] of lines) io().stdout.write(`${`${label}:`.padEnd(16)}${value}\n`);
}

const documentOf = ({ version: _v, updatedAt: _u, ...settings }: SettingsVersion): SettingsInput => settings;

async function newDocument(ctx: Ctx, id: string, o: SettingsOpts): Promise<SettingsInput> {
  const burst = o['burst-ms'];
  if (o.file !== undefined) {
    if (o.prompt || o.access || o.daily || burst !== undefined)
      throw new UsageError(
        'berth assistants settings set takes --file or --prompt/--access/--daily/--burst-ms, not both',
      );
    const text = o.file === '-' ? await readStdin() : readFileSync(o.file, 'utf8');
    try {
      return JSON.parse(text) as SettingsInput;
    } catch {
      throw new UsageError(`${o.file === '-' ? 'stdin' : o.file} is not a JSON settings document`);
    }
  }
  if (!o.prompt && !o.access && o.daily === undefined && burst === undefined)
    throw new UsageError(
      'berth assistants settings set needs --file <path|-> or at least one of --prompt, --access, --daily, --burst-ms',
    );
  const doc = documentOf(await ctx.client().settings(id));
  if (o.prompt) doc.systemPrompt = o.prompt;
  if (o.access) {
    const mode = ACCESS.find((m) => m === o.access);
    if (!mode) throw new UsageError(`--access takes ${ACCESS.join('|')}`);
    doc.access = { ...doc.access, mode };
  }
  if (o.daily !== undefined) {
    const n = Number(o.daily);
    if (o.daily !== 'none' && !(Number.isInteger(n) && n > 0))
      throw new UsageError('--daily takes a whole number of replies per user and day, or "none"');
    doc.access = { ...doc.access, perUserDailyReplies: o.daily === 'none' ? null : n };
  }
  if (burst !== undefined) {
    const n = Number(burst);
    if (burst !== 'default' && !(/^\d+$/.test(burst) && n <= BURST_MS_MAX))
      throw new UsageError(
        `--burst-ms takes a whole number of milliseconds from 0 to ${BURST_MS_MAX}, or "default" (${DEFAULT_BURST_MS})`,
      );
    // "default": the field goes, and the agent's default applies again.
    const { burstMs: _burstMs, ...rest } = doc;
    return burst === 'default' ? rest : { ...rest, burstMs: n };
  }
  return doc;
}

export async function settingsCommand(ctx: Ctx, args: string[], o: SettingsOpts): Promise<number> {
  const [verb, id] = args;
  if (!id) throw new UsageError('usage: berth assistants settings get|set|versions|rollback <id>');
  const client = ctx.client();
  const show = (v: SettingsVersion, next?: string) => {
    if (ctx.json) return printJson(v);
    printSettings(v);
    if (next) note(next);
  };
  switch (verb) {
    case 'get':
      show(await client.settings(id));
      return 0;
    case 'set':
      show(
        await client.putSettings(id, await newDocument(ctx, id, o)),
        'Saved; a running assistant uses it from its next message.',
      );
      return 0;
    case 'versions': {
      const list = await client.settingsVersions(id);
      if (ctx.json) printJson(list);
      else
        printTable([
          ['VERSION', 'UPDATED', 'ACCESS', 'PROMPT'],
          ...list.map((v) => [
            String(v.version),
            v.updatedAt,
            v.access.mode,
            v.systemPrompt.split('\n')[0]!.slice(0, 50),
          ]),
        ]);
      return 0;
    }
    case 'rollback': {
      const version = Number(o.version);
      if (!Number.isInteger(version) || version < 1)
        throw new UsageError('berth assistants settings rollback needs --version <n>');
      show(await client.rollbackSettings(id, version), `Restored version ${version} as a new version.`);
      return 0;
    }
    default:
      throw new UsageError('usage: berth assistants settings get|set|versions|rollback <id>');
  }
}

export async function pairCommand(ctx: Ctx, args: string[]): Promise<number> {
  const [verb, id, code] = args;
  const client = ctx.client();
  if (verb === 'list' && id) {
    const list: Pairing[] = await client.pairings(id);
    if (ctx.json) printJson(list);
    else if (!list.length) io().stdout.write('No pending pairing codes.\n');
    else
      printTable([
        ['CODE', 'TELEGRAM USER', 'NAME', 'EXPIRES'],
        ...list.map((p) => [p.code, String(p.telegramUserId), p.name ?? '-', p.expiresAt]),
      ]);
    return 0;
  }
  if (verb === 'approve' && id && code) {
    const v = await client.approvePairing(id, code);
    if (ctx.json) printJson(v);
    else
      io().stdout.write(
        `Approved ${code}: settings version ${v.version} allows ${v.access.telegramUserIds.join(', ')}\n`,
      );
    return 0;
  }
  throw new UsageError('usage: berth assistants pair list <id> | berth assistants pair approve <id> <code>');
}
