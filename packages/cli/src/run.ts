// berth: the user's command line (talks to a running server over HTTP) and the operator's
// `berth admin …` (the server's admin verbs). Status lines go to stderr; results to stdout, so
// scripts can take the last line of stdout (the key of create-key) or parse it (--json).
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readCliEnv, UsageError } from './config/env.js';
import { createCtx } from './commands/context.js';
import { EXIT_CODES_HELP } from './output/exit-codes.js';
import { reportError } from './output/report-error.js';
import { type CliIo, io, withIo } from './io.js';
import type { AssistantOpts } from './commands/assistants.js';

const USAGE = `Usage: berth <command> [options]

  berth --version                        the CLI's version

Your assistants (talks to the server at BERTH_URL, default http://127.0.0.1:8080):
  berth login [--key <key>]              check an API key against the server and save it (asks on a
                                         terminal without echo; else --key or the key on stdin)
  berth logout                           forget the saved key
  berth keys whoami                      which key is in use, and whether the server accepts it
  berth keys list                        your keys and your organizations' keys (prefixes, last use)
  berth keys create --name <name> [--org <organization id>]
                                         a new key (printed once, alone on the last line of stdout)
  berth keys revoke <id>                 revoke a key (yours, or any of an organization you own)
  berth assistants list                  your assistants
  berth assistants get <id>
  berth assistants buy --mode byok|managed|unlimited
                                         buy a slot; prints its id, and the checkout URL to pay at
  berth assistants pay <id>              print the checkout link of an unpaid slot (pay on any device)
  berth assistants activate <id> --name <name> --model <model> [--provider <provider>]
                         [--bot-token <token>|-] [--model-key <key>|-] [--callback-url <url>]
  berth assistants update <id> [--name] [--model] [--provider] [--bot-token <token>|-] [--model-key <key>|-]
  berth assistants model <id> --model <model> [--provider <provider>]
                                         change the model; an active assistant takes it live
  berth assistants redeploy <id> [--callback-url <url>]
  berth assistants stop <id>
  berth assistants limits <id> --cap-usd <amount|none>
                                         a byok assistant's spend cap per billing period (none: no cap)
  berth assistants delete <id> [--yes]   asks for confirmation on a terminal; --yes skips it
  berth assistants settings get|versions <id>
  berth assistants settings set <id> (--file <path|-> | [--prompt <text>] [--access open|allowlist|pairing]
                         [--daily <n>|none] [--burst-ms <ms>|default])
                                         a new settings version, applied live when active
  berth assistants settings rollback <id> --version <n>
  berth assistants pair list <id>        pending pairing codes (access mode "pairing")
  berth assistants pair approve <id> <code>
  berth assistants reminders list <id>   every end user's pending reminders and tasks (active assistant)
  berth assistants reminders clear <id> [--reminder <reminderId>]
                                         cancel one, or all of them; none of them is delivered
  berth assistants mcp list <id>         the owner's MCP servers, their status and tool counts
  berth assistants mcp add <id> <name> --url <url> [--header "Name: value"|-] [--tools a,b]
                                         add or replace a server (at most 5); its tools are offered
                                         as mcp_<name>_<tool>; the header is write-only ("-": stdin)
  berth assistants mcp remove <id> <name>
  berth assistants mcp tools <id> <name> the server's tools, with which are enabled
  berth assistants channels list <id>    its channels: Telegram, WhatsApp (webhook URL and verify token)
  berth assistants channels set <id> whatsapp --phone-number-id <id> [--access-token -] [--app-secret -]
  berth assistants channels set <id> discord --application-id <id> [--bot-token -]
  berth assistants channels remove <id> whatsapp|discord
  berth assistants models [--mode byok|managed|unlimited]
                                         the model catalog with prices (activate offers it too)
  berth status <id> [--watch] [--timeout <seconds>]
                                         with --watch, waits until the assistant is active or failed
  berth chat <id> ["message"] [--session <id>]
                                         one message (argument or stdin), or a conversation on a
                                         terminal (/reset starts a new session, /exit leaves)

  Every command takes --json: stdout then carries only JSON (the response's data; for chat, the
  completion object). Secrets: "-" as the value of --bot-token/--model-key reads it from stdin (or
  asks without echo on a terminal); activate also reads BERTH_BOT_TOKEN and BERTH_MODEL_KEY.
  The key: BERTH_API_KEY, else the one saved by berth login ($XDG_CONFIG_HOME/berth/config.json,
  default ~/.config/berth/config.json).

Operator commands (the server's admin verbs; they read the server's environment: DATA_DIR, DATABASE_URL,
SECRETS_KEY):
  berth admin create-key --email <email>     create the user if needed and print a new API key
  berth admin list-keys --email <email>      list a user's keys (prefixes only)
  berth admin revoke-key --email <email> --key <id or prefix>
  berth admin reset-link --email <email>     print a one-time link (an hour) that sets a new password
                                             (also gives a password to a user made by create-key)
  berth admin show-user --email <email>      show a user and their callback signing secret
  berth admin invite --email <email>         print a sign-up link for that email (SIGNUP=closed;
                                             single use, valid 7 days)
  berth admin placement --deployment <id> --placement shared|dedicated|default
                                         where one assistant runs on Kubernetes (default: KUBERNETES_PLACEMENT)
  berth admin backup --to FILE               a consistent snapshot while the server runs (database, agents'
                                             stores, secrets key), encrypted under BACKUP_PASSPHRASE
  berth admin restore --from FILE            into an empty DATA_DIR / database; proves the key opens the secrets
  berth admin migrate --status [--json]      applied and pending migrations (they run at start-up, after a backup)
  berth admin deployments list [--status S] [--json]
  berth admin deployments suspend ID --reason R
  berth admin deployments resume ID
  berth admin usage [--month YYYY-MM] [--json]   cost, replies and tokens per deployment and owner
  berth admin users list [--json]

${EXIT_CODES_HELP}`;

/** Options that each take a value (--name VALUE), by name. */
function valued<const N extends string>(...names: N[]) {
  return Object.fromEntries(names.map((n) => [n, { type: 'string' }])) as { [K in N]: { type: 'string' } };
}

const COMMON = { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } as const;
const OPTIONS = {
  login: { ...COMMON, ...valued('key') },
  logout: COMMON,
  keys: { ...COMMON, ...valued('name', 'org') },
  assistants: {
    ...COMMON,
    ...valued(
      'mode',
      'name',
      'model',
      'provider',
      'bot-token',
      'model-key',
      'callback-url',
      'file',
      'prompt',
      'access',
      'daily',
      'burst-ms',
      'version',
      'cap-usd',
      'reminder',
      'url',
      'header',
      'tools',
      'phone-number-id',
      'access-token',
      'app-secret',
      'application-id',
    ),
    yes: { type: 'boolean', short: 'y' },
  },
  status: { ...COMMON, watch: { type: 'boolean', short: 'w' }, ...valued('timeout') },
  chat: { ...COMMON, ...valued('session') },
} as const satisfies Record<string, ParseArgsConfig['options']>;

async function adminMain(command: string | undefined, rest: string[]): Promise<number> {
  if (!command || command === '--help' || command === '-h') {
    io().stderr.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  // Loaded only here: the operator's commands bring the whole server; the user's need none of it.
  const { adminCommand } = await import('./commands/admin.js');
  // `migrate --status` is a flag; `deployments list --status S` takes a value.
  const args = command === 'migrate' ? rest.map((a) => (a === '--status' ? '--status=all' : a)) : rest;
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...valued('email', 'key', 'deployment', 'placement', 'to', 'from', 'status', 'reason', 'month'),
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: true,
  });
  return adminCommand(command, { ...values, positionals });
}

function parse<K extends keyof typeof OPTIONS>(group: K, args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS[group], strict: true, allowPositionals: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

async function userMain(group: string, args: string[]): Promise<number> {
  if (!(group in OPTIONS)) throw new UsageError(`unknown command "${group}"`);
  const { values, positionals } = parse(group as keyof typeof OPTIONS, args);
  if (values.help) {
    io().stdout.write(`${USAGE}\n`);
    return 0;
  }
  const ctx = createCtx(readCliEnv(io().env), Boolean(values.json));
  switch (group) {
    case 'login': {
      const { login } = await import('./commands/login.js');
      return login(ctx, values as { key?: string });
    }
    case 'logout': {
      const { logout } = await import('./commands/login.js');
      return logout(ctx);
    }
    case 'keys': {
      const { keysCommand } = await import('./commands/keys.js');
      return keysCommand(ctx, positionals[0], positionals.slice(1), values as { name?: string; org?: string });
    }
    case 'assistants': {
      const { assistantsCommand } = await import('./commands/assistants.js');
      return assistantsCommand(ctx, positionals[0], positionals.slice(1), values as AssistantOpts);
    }
    case 'status': {
      const { statusCommand } = await import('./commands/status.js');
      return statusCommand(ctx, positionals[0], values as { watch?: boolean; timeout?: string });
    }
    default: {
      const { chatCommand } = await import('./commands/chat.js');
      return chatCommand(ctx, positionals[0], positionals.slice(1), values as { session?: string });
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  if (group === 'admin') {
    return adminMain(rest[0], rest.slice(1)).catch((err) => {
      io().stderr.write(`berth: ${(err as Error).message}\n`);
      return 1;
    });
  }
  if (group === '--version' || group === '-v' || group === 'version') {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io().stdout.write(`berth ${version} (node ${process.version})\n`);
    return 0;
  }
  if (!group || group === '--help' || group === '-h' || group === 'help') {
    (group ? io().stdout : io().stderr).write(`${USAGE}\n`);
    return group ? 0 : 2;
  }
  return userMain(group, rest).catch(reportError);
}

/**
 * One run of `berth argv`: its exit code. The bin gives it the process's streams; tests give it
 * buffers and run it in-process. Nothing here exits the process.
 */
export function run(argv: string[], given: CliIo): Promise<number> {
  return withIo(given, () =>
    main(argv).catch((err) => {
      io().stderr.write(`berth: ${(err as Error).message}\n`);
      return 1;
    }),
  );
}
