// Control characters never reach the store: NUL in a name was a 500 on PostgreSQL. Every stored
// string of activate and update is refused with a 400 that says why, and nothing changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startHarness } from './helpers/harness.js';
import { activationBody, assertError, pay, purchase } from './helpers/api.js';

const BAD = ['a\u0000b', 'line\nbreak', 'tab\there', 'bell\u0007', 'del\u007f'];

test('activate and update refuse control characters in every stored string', async () => {
  const h = await startHarness();
  try {
    const key = await h.key();
    const { deploymentId: id, checkoutUrl } = await purchase(h, key);
    await pay(h, checkoutUrl);
    const before = await h.snapshot();
    for (const bad of BAD) {
      for (const field of ['name', 'modelId', 'modelProvider', 'messengerBotToken', 'modelApiKey']) {
        const activate = await h.inject({
          method: 'POST',
          url: `/api/v1/assistants/${id}/activate`,
          headers: { 'x-api-key': key },
          payload: activationBody('byok', { [field]: bad }),
        });
        assertError(activate, 400, 'INVALID_REQUEST');
        assert.match(activate.json().error.message, new RegExp(`${field} must not contain control characters`));
        const update = await h.inject({
          method: 'PATCH',
          url: `/api/v1/assistants/${id}`,
          headers: { 'x-api-key': key },
          payload: { [field]: bad },
        });
        assertError(update, 400, 'INVALID_REQUEST');
      }
      const cb = await h.inject({
        method: 'POST',
        url: `/api/v1/assistants/${id}/activate`,
        headers: { 'x-api-key': key },
        payload: activationBody('byok', { callbackUrl: `https://example.com/${bad}` }),
      });
      assertError(cb, 400, 'INVALID_REQUEST');
    }
    assert.deepEqual(await h.snapshot(), before);
    const ok = await h.inject({
      method: 'POST',
      url: `/api/v1/assistants/${id}/activate`,
      headers: { 'x-api-key': key },
      payload: activationBody('byok', { name: 'Grüße 東京 👋🏽' }),
    });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.equal(ok.json().data.name, 'Grüße 東京 👋🏽');
  } finally {
    await h.close();
  }
});
