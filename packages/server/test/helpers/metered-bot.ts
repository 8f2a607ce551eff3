// A control plane with one active Telegram assistant whose replies the gateway meters: byok (the
// owner's key `ownerKey`) or managed (the operator's key, an allowance of `allowanceUsd`). The
// fake provider reports 1,000 prompt and 2,000 completion tokens a reply, so each reply's cost is known.
import assert from 'node:assert/strict';
import { request } from 'undici';
import type { Overrides } from '../../src/runtime.js';
import { startE2E, type E2E } from './e2e.js';

export interface MeteredBot {
  e: E2E;
  id: string;
  /** GET /api/v1/assistants/{id}/usage, its data. */
  usage(): Promise<any>;
}

export type Metering = { ownerKey: string } | { allowanceUsd: number };

export async function startMeteredBot(
  botToken: string,
  m: Metering,
  overrides: Overrides = {},
  opts: { media?: boolean } = {},
): Promise<MeteredBot> {
  const byok = 'ownerKey' in m;
  const e = await startE2E(byok ? {} : { MANAGED_MONTHLY_CREDITS_USD: String(m.allowanceUsd) }, overrides, opts);
  e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
  e.tg.addBot(botToken);
  let id: string;
  if (byok) {
    e.provider.apiKeys.add(m.ownerKey);
    id = await e.activate(botToken, { modelApiKey: m.ownerKey });
  } else {
    const bought = await e.api('POST', '/api/v1/assistants/purchase', { apiMode: 'managed' });
    assert.equal(bought.status, 201, bought.text);
    id = bought.json.data.deploymentId;
    await request(`${e.url}${new URL(bought.json.data.checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) =>
      r.body.dump(),
    );
    const body = { name: 'Managed', modelId: 'router/fake-model', messengerBotToken: botToken };
    const res = await e.api('POST', `/api/v1/assistants/${id}/activate`, body);
    assert.equal(res.status, 200, res.text);
  }
  await e.waitForStatus(id, ['active']);
  return {
    e,
    id,
    async usage() {
      const res = await e.api('GET', `/api/v1/assistants/${id}/usage`);
      assert.equal(res.status, 200, res.text);
      return res.json.data;
    },
  };
}
