// What PUT /agents/{name} accepts, as TypeBox schemas compiled once. Loaded with the first admin
// call that needs it (admin/routes.ts), so an empty host carries neither TypeBox nor a validator.
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { AssistantSettings } from '@berth/contracts/settings';
import { AssistantMount, TelegramChannelSpec, WorkerModel } from '@berth/contracts/worker';

export const AGENT_NAME = '^[a-z0-9][a-z0-9-]{0,62}$';

/** The older `telegram` field: the spec's Telegram channel without its `type`. */
const { type: _telegram, ...legacyTelegram } = TelegramChannelSpec.properties;

/**
 * The control plane's mount (@berth/contracts/worker, DESIGN §9.1), and what a control plane of the
 * version before sends instead: `telegram` for its one channel, no settings (the defaults) or a bare
 * systemPrompt. The agent calls its model with the key, so here it is required.
 */
export const AgentConfigBody = Type.Object(
  {
    ...AssistantMount.properties,
    model: Type.Object(
      { ...WorkerModel.properties, apiKey: Type.String({ minLength: 1 }) },
      { additionalProperties: false },
    ),
    channels: Type.Optional(AssistantMount.properties.channels),
    /** Older form of a `{ type: "telegram" }` entry of channels. */
    telegram: Type.Optional(Type.Object(legacyTelegram, { additionalProperties: false })),
    /** The owner's settings, whole (DESIGN §7.1); absent: the defaults. */
    settings: Type.Optional(AssistantSettings),
    /** Older form of settings.systemPrompt, used only without settings. */
    systemPrompt: Type.Optional(Type.String({ maxLength: 20_000 })),
    historyBudgetChars: Type.Optional(Type.Integer({ minimum: 1000, maximum: 2_000_000 })),
  },
  { additionalProperties: false },
);
export type AgentConfigBody = Static<typeof AgentConfigBody>;

export const AgentParams = Type.Object({ name: Type.String({ pattern: AGENT_NAME }) });

const params = Compile(AgentParams);
const body = Compile(AgentConfigBody);

/** The first few problems, as "params/name must match pattern ..." (where, then what). */
function problems(where: string, errors: Iterable<{ instancePath: string; message: string }>): string {
  return [...errors]
    .slice(0, 5)
    .map((e) => `${where}${e.instancePath} ${e.message}`)
    .join('; ');
}

/** Null when the name is one an agent may have, else why not. */
export function checkAgentName(value: unknown): string | null {
  return params.Check(value) ? null : problems('params', params.Errors(value));
}

/** The body when it is a valid agent configuration, else why not. */
export function checkAgentConfig(value: unknown): { ok: true; body: AgentConfigBody } | { ok: false; message: string } {
  return body.Check(value) ? { ok: true, body: value } : { ok: false, message: problems('body', body.Errors(value)) };
}
