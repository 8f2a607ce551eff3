// berth assistants …: one spec endpoint per subcommand. With --json each prints exactly the
// response's `data` (for list, the array); otherwise a short human view, hints on stderr.
import { io } from '../io.js';
import type { ActivateInput, DeploymentRecord, UpdateInput } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { confirm, stdinIsTty } from '../input/prompt.js';
import { readSecrets } from '../input/secrets.js';
import { printDeployment, printDeployments, printJson } from '../output/print.js';
import { note, type Ctx } from './context.js';
import { EXIT } from '../output/exit-codes.js';
import type { SettingsOpts } from './settings.js';

export interface AssistantOpts extends SettingsOpts {
  mode?: string;
  name?: string;
  model?: string;
  provider?: string;
  'bot-token'?: string;
  'model-key'?: string;
  'callback-url'?: string;
  'cap-usd'?: string;
  reminder?: string;
  url?: string;
  header?: string;
  tools?: string;
  'phone-number-id'?: string;
  'access-token'?: string;
  'app-secret'?: string;
  'application-id'?: string;
  yes?: boolean;
}

const MODES = ['byok', 'managed', 'unlimited'] as const;

/** A deployment record: the JSON of the API with --json, else the human view and a next step. */
function showRecord(ctx: Ctx, d: DeploymentRecord, next?: string): void {
  if (ctx.json) {
    printJson(d);
    return;
  }
  printDeployment(d);
  if (next) note(next);
}

function needId(id: string | undefined, command: string): string {
  if (!id) throw new UsageError(`berth assistants ${command} needs the assistant id: berth assistants ${command} <id>`);
  return id;
}

export async function assistantsCommand(
  ctx: Ctx,
  sub: string | undefined,
  args: string[],
  opts: AssistantOpts,
): Promise<number> {
  const [id] = args;
  switch (sub) {
    case 'settings': {
      const { settingsCommand } = await import('./settings.js');
      return settingsCommand(ctx, args, opts);
    }
    case 'pair': {
      const { pairCommand } = await import('./settings.js');
      return pairCommand(ctx, args);
    }
    case 'channels': {
      const { channelsCommand } = await import('./channels.js');
      return channelsCommand(ctx, args, opts);
    }
    case 'reminders': {
      const { remindersCommand } = await import('./reminders.js');
      return remindersCommand(ctx, args, opts);
    }
    case 'mcp': {
      const { mcpCommand } = await import('./mcp.js');
      return mcpCommand(ctx, args, opts);
    }
    case 'models': {
      const { modelsCommand } = await import('./models.js');
      return modelsCommand(ctx, opts.mode);
    }
    case 'list': {
      const list = await ctx.client().list();
      if (ctx.json) printJson(list);
      else printDeployments(list);
      return 0;
    }
    case 'get': {
      showRecord(ctx, await ctx.client().get(needId(id, sub)));
      return 0;
    }
    case 'buy': {
      const mode = MODES.find((m) => m === opts.mode);
      if (!mode) throw new UsageError(`berth assistants buy needs --mode ${MODES.join('|')}`);
      const bought = await ctx.client().purchase({ apiMode: mode });
      if (ctx.json) printJson(bought);
      else {
        io().stdout.write(`${bought.deploymentId}\n`);
        note(
          `Bought a ${mode} slot. Pay at:\n  ${bought.checkoutUrl}\nthen: berth assistants activate ${bought.deploymentId} --name … --model …`,
        );
      }
      return 0;
    }
    case 'pay': {
      const link = await ctx.client().checkout(needId(id, sub));
      if (ctx.json) printJson(link);
      else {
        io().stdout.write(`${link.checkoutUrl}\n`);
        note(
          `Open the link above in any browser to pay, then: berth assistants activate ${link.deploymentId} --name … --model …`,
        );
      }
      return 0;
    }
    case 'activate': {
      const deploymentId = needId(id, sub);
      if (!opts.name) throw new UsageError('berth assistants activate needs --name (and --model, or pick one)');
      const client = ctx.client();
      // The mode decides whether a model key is needed; ask the server rather than the user.
      const current = await client.get(deploymentId);
      // Before asking for any secret: an unpaid slot cannot be activated, so say where to pay.
      if (current.paymentStatus !== 'paid') {
        note(
          current.paymentStatus === 'pending'
            ? `This slot is not paid yet. Pay first: berth assistants pay ${deploymentId}`
            : `This slot's payment is ${current.paymentStatus}; it cannot be activated until it is paid.`,
        );
        return EXIT.failed;
      }
      // Without --model: the catalog's models for this mode, with prices, to pick from.
      const picked = opts.model
        ? { model: opts.model, provider: opts.provider }
        : await (await import('./models.js')).pickModel(ctx, current.apiMode);
      const byok = current.apiMode === 'byok';
      const [botToken, modelKey] = await readSecrets([
        {
          flag: '--bot-token',
          value: opts['bot-token'],
          env: { name: 'BERTH_BOT_TOKEN', value: ctx.env.botToken },
          required: true,
          source: 'the token @BotFather gave you in Telegram',
        },
        {
          flag: '--model-key',
          value: opts['model-key'],
          env: { name: 'BERTH_MODEL_KEY', value: ctx.env.modelKey },
          required: byok,
          source: "your model provider's API key, from its dashboard",
        },
      ]);
      const body: ActivateInput = {
        name: opts.name,
        modelId: picked.model,
        messengerBotToken: botToken ?? '',
        ...(picked.provider ? { modelProvider: picked.provider } : {}),
        ...(byok && modelKey ? { modelApiKey: modelKey } : {}),
        ...(opts['callback-url'] ? { callbackUrl: opts['callback-url'] } : {}),
      };
      showRecord(
        ctx,
        await client.activate(deploymentId, body),
        `Deploying. Follow it with: berth status ${deploymentId} --watch`,
      );
      return 0;
    }
    case 'update': {
      const deploymentId = needId(id, sub);
      const [botToken, modelKey] = await readSecrets([
        { flag: '--bot-token', value: opts['bot-token'], required: false },
        { flag: '--model-key', value: opts['model-key'], required: false },
      ]);
      const body: UpdateInput = {
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.model ? { modelId: opts.model } : {}),
        ...(opts.provider ? { modelProvider: opts.provider } : {}),
        ...(botToken ? { messengerBotToken: botToken } : {}),
        ...(modelKey ? { modelApiKey: modelKey } : {}),
      };
      if (!Object.keys(body).length) {
        throw new UsageError(
          'berth assistants update needs at least one of --name, --model, --provider, --bot-token, --model-key',
        );
      }
      showRecord(
        ctx,
        await ctx.client().update(deploymentId, body),
        `Updated. Apply it with: berth assistants redeploy ${deploymentId}`,
      );
      return 0;
    }
    case 'model': {
      const deploymentId = needId(id, sub);
      if (!opts.model)
        throw new UsageError('berth assistants model needs --model <model> (and --provider <provider> for byok)');
      const d = await ctx.client().changeModel(deploymentId, {
        modelId: opts.model,
        ...(opts.provider ? { modelProvider: opts.provider } : {}),
      });
      showRecord(
        ctx,
        d,
        d.status === 'active'
          ? 'The running assistant uses the new model from its next message.'
          : `Stored. The next deploy uses it: berth assistants redeploy ${deploymentId}`,
      );
      return 0;
    }
    case 'redeploy': {
      const callbackUrl = opts['callback-url'];
      const d = await ctx.client().redeploy(needId(id, sub), callbackUrl ? { callbackUrl } : {});
      showRecord(ctx, d, `Redeploying. Follow it with: berth status ${d.id} --watch`);
      return 0;
    }
    case 'limits': {
      const deploymentId = needId(id, sub);
      const raw = opts['cap-usd']?.trim();
      const cap = raw === 'none' ? null : Number(raw);
      if (!raw || (cap !== null && !(Number.isFinite(cap) && cap >= 0)))
        throw new UsageError('berth assistants limits needs --cap-usd <amount in USD, 0 or more> or --cap-usd none');
      const set = await ctx.client().limits(deploymentId, cap);
      if (ctx.json) printJson(set);
      else
        io().stdout.write(
          set.monthlySpendCapUsd === null
            ? 'No spend cap.\n'
            : `Spend cap: $${set.monthlySpendCapUsd} per billing period.\n`,
        );
      return 0;
    }
    case 'stop': {
      showRecord(ctx, await ctx.client().stop(needId(id, sub)));
      return 0;
    }
    case 'delete': {
      const deploymentId = needId(id, sub);
      if (!opts.yes) {
        if (!stdinIsTty())
          throw new UsageError(
            'berth assistants delete asks for confirmation on a terminal; pass --yes to delete without asking',
          );
        const d = await ctx.client().get(deploymentId);
        if (
          !(await confirm(
            `Delete assistant ${d.id} ("${d.name || 'unnamed'}", ${d.status})? Its worker and subscription end.`,
          ))
        ) {
          note('Not deleted.');
          return 1;
        }
      }
      const res = await ctx.client().remove(deploymentId);
      if (ctx.json) printJson(res);
      else note(`Deleted ${deploymentId}.`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "berth assistants ${sub ?? ''}"`);
  }
}
