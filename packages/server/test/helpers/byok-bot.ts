// A control plane with one active byok Telegram assistant whose model key is `ownerKey`: the fake
// provider reports 1,000 prompt and 2,000 completion tokens a reply, so each reply's cost is known.
import assert from 'node:assert/strict';
import { startE2E, type E2E } from './e2e.js';

export interface ByokBot {
  e: E2E;
  id: string;
  /** GET /api/v1/assistants/{id}/usage, its data. */
  usage(): Promise<any>;
}

export async function startByokBot(botToken: string, ownerKey: string): Promise<ByokBot> {
  const e = await startE2E();
  e.provider.usage = { prompt_tokens: 1000, completion_tokens: 2000 };
  e.provider.apiKeys.add(ownerKey);
  e.tg.addBot(botToken);
  const id = await e.activate(botToken, { modelApiKey: ownerKey });
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
