// The agent's web_search tool: the control plane's answer becomes results for the model; a
// control plane that stalls or refuses is a sentence for the model within the tool's deadline.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { webSearchTool } from '../src/tools/web-search/index.js';

let mode: 'ok' | 'hang' | 'refuse' = 'ok';
const auth: string[] = [];
const server = createServer((req, res) => {
  auth.push(String(req.headers.authorization));
  req.resume();
  if (mode === 'hang') return;
  if (mode === 'refuse') {
    res.writeHead(429, { 'content-type': 'application/json' });
    return res.end(JSON.stringify({ error: { code: 'CREDITS_EXHAUSTED', message: 'The spend cap is reached' } }));
  }
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ data: { results: [{ title: 'T', url: 'https://example.org/', snippet: 'S' }] } }));
});
server.listen(0, '127.0.0.1');
await once(server, 'listening');
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/gateway/v1/search`;
after(() => {
  server.closeAllConnections();
  server.close();
});
const signal = new AbortController().signal;
const tool = webSearchTool({ url, credential: 'bgw_credential_0123456789' }, 500);

test('results come back for the model with a note to cite them as links', async () => {
  mode = 'ok';
  const out = JSON.parse(await tool.run({ query: 'otters' }, signal));
  assert.deepEqual(out.results, [{ title: 'T', url: 'https://example.org/', snippet: 'S' }]);
  assert.match(out.note, /links/);
  assert.equal(auth.at(-1), 'Bearer bgw_credential_0123456789');
});

test('a stalled or refusing search is a sentence within the deadline, not a hang', async () => {
  mode = 'hang';
  await assert.rejects(tool.run({ query: 'otters' }, signal), /did not answer within 1 seconds|did not answer within/);
  mode = 'refuse';
  await assert.rejects(tool.run({ query: 'otters' }, signal), /Web search failed: The spend cap is reached/);
  await assert.rejects(tool.run({ query: '  ' }, signal), /Give the words/);
});
