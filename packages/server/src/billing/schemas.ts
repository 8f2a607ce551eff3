import { Type } from 'typebox';
import { Nullable, Timestamp } from '../platform/http/schemas/common.js';

const Usd = (description: string) => Type.Number({ minimum: 0, description });

export const UsageDay = Type.Object(
  {
    date: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
    replies: Type.Integer({ minimum: 0 }),
    promptTokens: Type.Integer({ minimum: 0 }),
    completionTokens: Type.Integer({ minimum: 0 }),
    costUsd: Usd("Cost of the day's replies at catalog prices (or the provider's reported cost)"),
  },
  { additionalProperties: false },
);

export const USAGE_GROUPINGS = ['day', 'model', 'endUser'] as const;

export const UsageQuery = Type.Object(
  {
    groupBy: Type.Optional(
      Type.Union(
        USAGE_GROUPINGS.map((g) => Type.Literal(g)),
        { description: 'Adds `groups`: the period summed per day, per model or per end user.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const UsageGroup = Type.Object(
  {
    key: Nullable(
      Type.String({
        description:
          'The day (YYYY-MM-DD), the model id, or the end user: "tg:<Telegram user id>", "api:<the chat API\'s user>"; null: not known (calls made without one, or before end users were recorded).',
      }),
    ),
    replies: Type.Integer({ minimum: 0, description: 'Model calls answered' }),
    promptTokens: Type.Integer({ minimum: 0 }),
    completionTokens: Type.Integer({ minimum: 0 }),
    costUsd: Usd("Cost at catalog prices (or the provider's reported cost)"),
  },
  { additionalProperties: false },
);

export const UsageView = Type.Object(
  {
    deploymentId: Type.String({ format: 'uuid' }),
    apiMode: Type.Union([Type.Literal('byok'), Type.Literal('managed'), Type.Literal('unlimited')]),
    period: Type.Object(
      { start: Timestamp, end: Timestamp },
      { additionalProperties: false, description: 'The billing period; it renews when the subscription is paid.' },
    ),
    allowanceUsd: Nullable(Usd("Monthly credit (managed, unlimited) or the owner's spend cap (byok); null: no limit")),
    usedUsd: Usd('Spent in this period'),
    remainingUsd: Nullable(Usd('Allowance left; null: no limit')),
    replies: Type.Integer({ minimum: 0 }),
    promptTokens: Type.Integer({ minimum: 0 }),
    completionTokens: Type.Integer({ minimum: 0 }),
    daily: Type.Array(UsageDay, { description: 'Per-day series of this period, oldest first, days with usage only.' }),
    groupBy: Type.Optional(Type.Union(USAGE_GROUPINGS.map((g) => Type.Literal(g)))),
    groups: Type.Optional(
      Type.Array(UsageGroup, {
        description:
          "With groupBy: days oldest first; models and end users costliest first (at most 1,000). Their sums are the period's totals.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const LimitsBody = Type.Object(
  {
    monthlySpendCapUsd: Nullable(
      Type.Number({
        minimum: 0,
        maximum: 1_000_000,
        description: "USD per billing period for this byok assistant's own key; null removes the cap.",
      }),
    ),
  },
  { additionalProperties: false },
);

export const LimitsView = Type.Object(
  {
    monthlySpendCapUsd: Nullable(Type.Number({ minimum: 0 })),
  },
  { additionalProperties: false },
);
