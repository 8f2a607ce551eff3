// At the default level (info) a request that went well writes no log line (two lines a request
// cost a fifth of the read path's CPU); one that failed on the server side still does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capturingLogger } from './helpers/logs.js';
import { startHarness } from './helpers/harness.js';
import { activeDeployment } from './helpers/api.js';

test('at info, good requests are silent and a failed one is logged with its status', async () => {
  const { lines, logger } = capturingLogger('info');
  const h = await startHarness({}, { logger });
  try {
    await h.runtime.restored;
    const key = await h.key();
    const id = await activeDeployment(h, key);
    const before = lines.length;
    for (let i = 0; i < 5; i++) {
      const res = await h.inject({ method: 'GET', url: `/api/v1/assistants/${id}`, headers: { 'x-api-key': key } });
      assert.equal(res.statusCode, 200);
    }
    assert.deepEqual(lines.slice(before), [], 'successful reads wrote log lines at info');

    h.workers.deleteStatus = 500;
    const res = await h.inject({ method: 'POST', url: `/api/v1/assistants/${id}/stop`, headers: { 'x-api-key': key } });
    assert.equal(res.statusCode, 502);
    const logged = lines.slice(before).map((l) => JSON.parse(l));
    const failed = logged.find((l) => l.res?.statusCode === 502);
    assert.ok(failed, 'the 502 was not logged');
    // The request's child logger is made only when it writes; its lines still carry the request id.
    assert.equal(failed.reqId, res.headers['x-request-id']);
  } finally {
    await h.close();
  }
});

test('at debug, every request is logged', async () => {
  const { lines, logger } = capturingLogger('debug');
  const h = await startHarness({}, { logger });
  try {
    // The start-up pass runs after the server listens (issue 30): let it finish and log first.
    await h.runtime.restored;
    const before = lines.length;
    const res = await h
      .inject({ method: 'GET', url: '/healthz' })
      .then(() => lines.slice(before).map((l) => JSON.parse(l)));
    assert.deepEqual(
      res.map((l) => l.msg),
      ['incoming request', 'request completed'],
    );
    assert.equal(res[0].reqId, res[1].reqId);
    assert.ok(res[0].reqId, 'request lines carry the request id');
  } finally {
    await h.close();
  }
});
