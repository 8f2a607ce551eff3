// Which errors blame the client (issue 57: a plain GET once answered 400 "The request body is not
// valid JSON."): only a body Fastify's JSON parser refused is that 400; a SyntaxError from anywhere
// else is the server's own fault, a logged 500; Fastify's other 400s keep their own words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { installErrorHandler } from '../src/platform/http/error-handler.js';

async function app() {
  const logged: string[] = [];
  const a = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => void logged.push(line) } },
  });
  installErrorHandler(a);
  a.get('/stored-value', async () => JSON.parse('{"half'));
  a.get('/fastify-400', async () => {
    throw Object.assign(new Error('the header is malformed'), { statusCode: 400 });
  });
  a.post('/echo', async (req) => req.body);
  await a.ready();
  return { a, logged };
}

test('a SyntaxError that is not the body is a logged 500, not a 400 blaming the request', async () => {
  const { a, logged } = await app();
  const res = await a.inject({ method: 'GET', url: '/stored-value' });
  assert.equal(res.statusCode, 500, res.body);
  assert.equal(res.json().error.code, 'INTERNAL_ERROR');
  assert.ok(
    logged.some((l) => l.includes('unhandled error')),
    'logged for the operator',
  );
  await a.close();
});

test('a body that is not JSON is still a 400 saying so; other 400s keep their words', async () => {
  const { a } = await app();
  const bad = await a.inject({
    method: 'POST',
    url: '/echo',
    headers: { 'content-type': 'application/json' },
    payload: '{"a":',
  });
  assert.equal(bad.statusCode, 400);
  assert.deepEqual(bad.json().error, { code: 'INVALID_REQUEST', message: 'The request body is not valid JSON.' });
  const other = await a.inject({ method: 'GET', url: '/fastify-400' });
  assert.equal(other.statusCode, 400);
  assert.equal(other.json().error.code, 'INVALID_REQUEST');
  assert.match(other.json().error.message, /the header is malformed/);
  await a.close();
});
