// Client compatibility, issue 65: the official `openai` SDK's Responses API (`client.responses`),
// which newer OpenAI clients default to, at a deployment's base URL, against the real control
// plane, agent host and fake provider.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createApiKey } from '../../src/index.js';
import { openStore } from '../../src/platform/store/database.js';
import { StoredResponseRepo } from '../../src/platform/store/stored-responses.js';
import { MODEL, setUpCompatBed, type CompatBed } from '../helpers/client-compat.js';

let bed: CompatBed;
let client: OpenAI;

setUpCompatBed((b) => {
  bed = b;
  client = new OpenAI({ apiKey: bed.e.key, baseURL: bed.base });
});

test('responses.create: output_text, usage, and the parameters reach the provider', async () => {
  const res = await client.responses.create({
    model: MODEL,
    input: 'hello',
    temperature: 0.3,
    max_output_tokens: 50,
    text: { format: { type: 'text' } },
  });
  assert.equal(res.object, 'response');
  assert.match(res.id, /^resp_/);
  assert.equal(res.status, 'completed');
  assert.equal(res.output_text, 'You said: hello');
  assert.ok(res.usage && res.usage.total_tokens > 0, 'usage is reported');
  const upstream = bed.e.provider.requests.at(-1)!.body;
  assert.equal(upstream.temperature, 0.3);
  assert.equal(upstream.max_tokens, 50);
  assert.equal(upstream.max_output_tokens, undefined, 'a Responses-only field never reaches the provider');
  assert.equal(upstream.text, undefined);
});

test('instructions reach the model as a system message', async () => {
  await client.responses.create({ model: MODEL, input: 'who are you', instructions: 'Answer as a pirate.' });
  const messages: Array<{ role: string; content: unknown }> = bed.e.provider.requests.at(-1)!.body.messages;
  assert.ok(
    messages.some((m) => m.role === 'system' && String(m.content).includes('Answer as a pirate.')),
    JSON.stringify(messages),
  );
});

test('input as message items with input_text parts', async () => {
  const res = await client.responses.create({
    model: MODEL,
    input: [{ role: 'user', content: [{ type: 'input_text', text: 'from parts' }] }],
  });
  assert.equal(res.output_text, 'You said: from parts');
});

test('stream: output_text deltas in order, then response.completed with the whole text', async () => {
  const stream = await client.responses.create({ model: MODEL, input: 'stream the responses', stream: true });
  const types: string[] = [];
  const seq: number[] = [];
  let text = '';
  let completed: OpenAI.Responses.Response | undefined;
  for await (const event of stream) {
    types.push(event.type);
    seq.push(event.sequence_number);
    if (event.type === 'response.output_text.delta') text += event.delta;
    if (event.type === 'response.completed') completed = event.response;
  }
  assert.equal(text, 'You said: stream the responses');
  assert.deepEqual(types.slice(0, 4), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ]);
  assert.deepEqual(types.slice(-4), [
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    'response.completed',
  ]);
  assert.ok(types.includes('response.output_text.delta'));
  assert.deepEqual(
    seq,
    seq.map((_, i) => i),
    'sequence numbers count from 0',
  );
  assert.equal(completed?.output_text ?? completed?.output[0]?.type, 'message');
  const first = completed!.output[0] as OpenAI.Responses.ResponseOutputMessage;
  assert.deepEqual(first.content, [{ type: 'output_text', text: 'You said: stream the responses', annotations: [] }]);
});

test('the SDK stream helper (responses.stream) ends with the final response', async () => {
  const stream = client.responses.stream({ model: MODEL, input: 'helper stream' });
  const final = await stream.finalResponse();
  assert.equal(final.output_text, 'You said: helper stream');
});

test('previous_response_id continues the conversation: the provider sees the earlier turn', async () => {
  const first = await client.responses.create({ model: MODEL, input: 'my name is Ada' });
  const second = await client.responses.create({
    model: MODEL,
    input: 'what is my name?',
    previous_response_id: first.id,
  });
  assert.equal(second.output_text, 'You said: what is my name?');
  const contents = bed.lastUpstreamContents();
  assert.ok(contents.includes('my name is Ada'), JSON.stringify(contents));
  assert.ok(contents.includes('You said: my name is Ada'), 'the earlier answer too');
  // And a streamed third turn continues the same conversation.
  const stream = await client.responses.create({
    model: MODEL,
    input: 'and again?',
    previous_response_id: second.id,
    stream: true,
  });
  for await (const _ of stream);
  assert.ok(bed.lastUpstreamContents().includes('what is my name?'));
});

test('an input that carries its own history reaches the model whole (as the Vercel AI SDK sends it)', async () => {
  const res = await client.responses.create({
    model: MODEL,
    input: [
      { role: 'user', content: 'first question' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'first answer', annotations: [] }] },
      { role: 'user', content: 'second question' },
    ],
  } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
  assert.equal(res.output_text, 'You said: second question');
  const contents = bed.lastUpstreamContents();
  for (const turn of ['first question', 'first answer', 'second question']) assert.ok(contents.includes(turn), turn);
});

test('a fresh response does not see another conversation', async () => {
  await client.responses.create({ model: MODEL, input: 'secret-turn-one' });
  await client.responses.create({ model: MODEL, input: 'unrelated' });
  assert.ok(!bed.lastUpstreamContents().includes('secret-turn-one'));
});

test('store: false keeps nothing: GET is 404 and previous_response_id is refused with a clear 400', async () => {
  const res = await client.responses.create({ model: MODEL, input: 'forget me', store: false });
  assert.equal(res.output_text, 'You said: forget me');
  await assert.rejects(client.responses.retrieve(res.id), (err: unknown) => {
    assert.ok(err instanceof OpenAI.NotFoundError);
    return true;
  });
  await assert.rejects(
    client.responses.create({ model: MODEL, input: 'more', previous_response_id: res.id }),
    (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match(String((err as Error).message), /whole conversation/);
      return true;
    },
  );
});

test('a previous_response_id that is not ours is a 400 naming it', async () => {
  await assert.rejects(
    client.responses.create({ model: MODEL, input: 'x', previous_response_id: 'resp_made_up' }),
    (err: unknown) => err instanceof OpenAI.BadRequestError && /resp_made_up/.test((err as Error).message),
  );
});

test('GET /responses/{id}: a stored response, as created', async () => {
  const created = await client.responses.create({ model: MODEL, input: 'keep me' });
  const got = await client.responses.retrieve(created.id);
  assert.equal(got.id, created.id);
  assert.equal(got.output_text, 'You said: keep me');
  const streamed = await client.responses.create({ model: MODEL, input: 'keep me streamed', stream: true });
  let id = '';
  for await (const event of streamed) if (event.type === 'response.completed') id = event.response.id;
  assert.equal((await client.responses.retrieve(id)).output_text, 'You said: keep me streamed');
});

test('another owner’s key gets 404, on create and on retrieve', async () => {
  const created = await client.responses.create({ model: MODEL, input: 'mine' });
  const { key } = await createApiKey(
    { users: bed.e.runtime.services.users, secrets: bed.e.runtime.secrets, now: () => new Date() },
    `stranger-${Date.now()}@example.com`,
  );
  const stranger = new OpenAI({ apiKey: key, baseURL: bed.base, maxRetries: 0 });
  const calls = bed.e.provider.requests.length;
  await assert.rejects(stranger.responses.create({ model: MODEL, input: 'hi' }), OpenAI.NotFoundError);
  await assert.rejects(stranger.responses.retrieve(created.id), OpenAI.NotFoundError);
  assert.equal(bed.e.provider.requests.length, calls, 'the model was never called');
});

test('a bad body is a 400 in the envelope; a stopped assistant is a 409 without retries', async () => {
  const res = await fetch(`${bed.base}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }),
  });
  assert.equal(res.status, 400);
  const body = (await res.json()) as { error: { code: string; message: string } };
  assert.equal(body.error.code, 'INVALID_REQUEST');
  assert.match(body.error.message, /input_file/);
  const missing = await fetch(`${bed.base}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL }),
  });
  assert.equal(missing.status, 400);
  assert.match(((await missing.json()) as { error: { message: string } }).error.message, /input/);
  const stopped = new OpenAI({ apiKey: bed.e.key, baseURL: bed.stoppedBase });
  await assert.rejects(stopped.responses.create({ model: MODEL, input: 'hi' }), (err: unknown) => {
    assert.ok(err instanceof OpenAI.APIError);
    assert.equal(err.status, 409);
    return true;
  });
});

/** The bed's database opened again, as another replica or a restarted control plane opens it. */
async function anotherStore() {
  return openStore({ databaseUrl: bed.e.databaseUrl, dataDir: bed.e.dataDir, migrate: false });
}

const post = (body: unknown) =>
  fetch(`${bed.base}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bed.e.key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

test('a stored response is in the shared store: another replica reads it, and GET serves what another wrote', async () => {
  const created = await client.responses.create({ model: MODEL, input: 'outlive the process' });
  const store = await anotherStore();
  try {
    const repo = new StoredResponseRepo(store.db);
    const seen = JSON.parse((await repo.find(bed.id, created.id))!) as OpenAI.Responses.Response;
    assert.equal(seen.id, created.id);
    assert.deepEqual(seen.output, created.output);
    // Written by "another replica": this process never held it, and serves it.
    const elsewhere = { ...seen, id: 'resp_0123456789abcdef01234567_0123456789abcdef' };
    await repo.keep(bed.id, elsewhere.id, JSON.stringify(elsewhere), new Date());
    const got = await client.responses.retrieve(elsewhere.id);
    assert.equal(got.output_text, 'You said: outlive the process');
    // And a conversation another replica answered continues here.
    const next = await client.responses.create({ model: MODEL, input: 'go on', previous_response_id: created.id });
    assert.equal(next.output_text, 'You said: go on');
    assert.ok(bed.lastUpstreamContents().includes('outlive the process'));
  } finally {
    await store.close();
  }
});

test('store: false is never written to the store', async () => {
  const res = await client.responses.create({ model: MODEL, input: 'not on disk', store: false });
  const streamed = await client.responses.create({ model: MODEL, input: 'nor this', store: false, stream: true });
  let streamedId = '';
  for await (const event of streamed) if (event.type === 'response.completed') streamedId = event.response.id;
  const store = await anotherStore();
  try {
    const repo = new StoredResponseRepo(store.db);
    assert.equal(await repo.find(bed.id, res.id), undefined);
    assert.equal(await repo.find(bed.id, streamedId), undefined);
  } finally {
    await store.close();
  }
});

test("another assistant's response: GET is 404, and as previous_response_id a 400 with no model call and nothing stored", async () => {
  // A conversation of another assistant (the stopped one's rows stand in for any other tenant's:
  // every read is by assistant and id).
  const foreign = await client.responses.create({ model: MODEL, input: 'the other one' });
  const store = await anotherStore();
  try {
    const repo = new StoredResponseRepo(store.db);
    const theirs = 'resp_aaaaaaaaaaaaaaaaaaaaaaaa_0000000000000001';
    await repo.keep(bed.stoppedId, theirs, (await repo.find(bed.id, foreign.id))!, new Date());
    await assert.rejects(client.responses.retrieve(theirs), OpenAI.NotFoundError);
    const calls = bed.e.provider.requests.length;
    const res = await post({ model: MODEL, input: 'read their conversation', previous_response_id: theirs });
    assert.equal(res.status, 400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.match(body.error.message, /not found/);
    assert.match(body.error.message, new RegExp(theirs));
    assert.equal(bed.e.provider.requests.length, calls, 'the model was never called');
    // Nothing was written for the refused call: the assistant's newest stored response is still the foreign one's.
    const newest = await store.db
      .selectFrom('stored_responses')
      .select('id')
      .where('deployment_id', '=', bed.id)
      .orderBy('created_at', 'desc')
      .executeTakeFirst();
    assert.equal(newest?.id, foreign.id);
  } finally {
    await store.close();
  }
});

test('an input item that is not a message is a 400 naming its type, before any model call', async () => {
  const calls = bed.e.provider.requests.length;
  for (const item of [
    { type: 'function_call_output', call_id: 'call_1', output: '4' },
    { type: 'item_reference', id: 'msg_1' },
    { type: 'reasoning', summary: [] },
  ]) {
    const res = await post({ model: MODEL, input: [{ role: 'user', content: 'hi' }, item] });
    assert.equal(res.status, 400, item.type);
    const body = (await res.json()) as { error: { code: string; message: string } };
    assert.equal(body.error.code, 'INVALID_REQUEST');
    assert.match(body.error.message, new RegExp(`input\\[1\\].*"${item.type}"`));
  }
  assert.equal(bed.e.provider.requests.length, calls, 'the model was never called');
});

test('tools the assistant does not run are refused (function and hosted), through the openai SDK too', async () => {
  const calls = bed.e.provider.requests.length;
  await assert.rejects(
    client.responses.create({
      model: MODEL,
      input: 'what is the weather',
      tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: {} }, strict: false }],
    }),
    (err: unknown) => {
      assert.ok(err instanceof OpenAI.BadRequestError);
      assert.match((err as Error).message, /tools of type "function" are not supported/);
      return true;
    },
  );
  const hosted = await post({ model: MODEL, input: 'search', tools: [{ type: 'web_search_preview' }] });
  assert.equal(hosted.status, 400);
  assert.match(((await hosted.json()) as { error: { message: string } }).error.message, /"web_search_preview"/);
  // An empty list asks for nothing and is answered.
  assert.equal((await post({ model: MODEL, input: 'no tools', tools: [] })).status, 200);
  assert.equal(bed.e.provider.requests.length, calls + 1, 'only the call without tools reached the model');
});

test('a body that is not a JSON object is a 400, not a 500', async () => {
  for (const raw of ['null', '[1]', '5']) {
    const res = await fetch(`${bed.base}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bed.e.key}`, 'content-type': 'application/json' },
      body: raw,
    });
    assert.equal(res.status, 400, raw);
  }
});

/** A response's text as a stream event carries it (the SDK adds `output_text` to whole answers only). */
const textOf = (r: OpenAI.Responses.Response) =>
  r.output
    .flatMap((o) => (o.type === 'message' ? o.content : []))
    .map((c) => (c.type === 'output_text' ? c.text : ''))[0];

/**
 * The store's response writes, held: `started` gives the id once the server has begun one, and the
 * write goes on only on `release()` (`written` then settles), so "stored yet?" is the test's to decide.
 */
function holdStoreWrites() {
  const repo = bed.e.runtime.services.responses;
  const real = repo.keep;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let started!: (id: string) => void;
  const begun = new Promise<string>((r) => (started = r));
  let written!: Promise<void>;
  repo.keep = (deploymentId, id, body, at) => {
    started(id);
    written = gate.then(() => real.call(repo, deploymentId, id, body, at));
    return written;
  };
  return { started: begun, release, written: () => written, restore: () => (repo.keep = real) };
}

test('a streamed response.completed comes only once the response is stored: a GET right after it finds it', async () => {
  const held = holdStoreWrites();
  try {
    const stream = await client.responses.create({ model: MODEL, input: 'held write', stream: true });
    let released = false;
    let completedWhileHeld: boolean | undefined;
    let completedText = '';
    let getAfter: Promise<OpenAI.Responses.Response> | undefined;
    const read = (async () => {
      for await (const event of stream)
        if (event.type === 'response.completed') {
          completedWhileHeld = !released;
          completedText = textOf(event.response);
          // Asked at once, before the stream is read to its end: what a client does next.
          getAfter = client.responses.retrieve(event.response.id);
          getAfter.catch(() => {});
        }
    })();
    // The worker has answered whole and the write has begun but is not done: not readable yet, and
    // (the check of this test) the client must not have been told it is complete.
    const id = await held.started;
    await assert.rejects(client.responses.retrieve(id), OpenAI.NotFoundError);
    assert.equal(completedWhileHeld, undefined, 'response.completed was sent before the response was stored');
    released = true;
    held.release();
    await read;
    assert.equal(completedWhileHeld, false);
    const got = await getAfter!;
    assert.equal(got.id, id);
    assert.equal(got.output_text, 'You said: held write');
    assert.equal(completedText, got.output_text);
  } finally {
    held.restore();
  }
});

test('a client that leaves while its response is being stored: the write still completes', async () => {
  const held = holdStoreWrites();
  try {
    const stream = await client.responses.create({ model: MODEL, input: 'leave early', stream: true });
    const read = (async () => {
      for await (const _ of stream);
    })().catch(() => {});
    const id = await held.started;
    stream.controller.abort();
    await read;
    held.release();
    await held.written();
    assert.equal((await client.responses.retrieve(id)).output_text, 'You said: leave early');
  } finally {
    held.restore();
  }
});

test('a response that cannot be stored is failed, not completed (streamed and buffered), and GET is 404', async () => {
  const repo = bed.e.runtime.services.responses;
  const real = repo.keep;
  repo.keep = () => Promise.reject(new Error('the disk is full'));
  try {
    const stream = await client.responses.create({ model: MODEL, input: 'not kept', stream: true });
    const types: string[] = [];
    let last: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.failed' || event.type === 'response.completed') last = event.response;
    }
    assert.equal(types.at(-1), 'response.failed');
    assert.ok(!types.includes('response.completed'));
    assert.equal(last!.status, 'failed');
    assert.equal(last!.error?.code, 'server_error');
    assert.match(last!.error!.message, /could not be stored/);
    assert.equal(textOf(last!), 'You said: not kept', 'the answer the client already read is kept in it');
    await assert.rejects(client.responses.retrieve(last!.id), OpenAI.NotFoundError);

    const buffered = await client.responses.create({ model: MODEL, input: 'not kept either' });
    assert.equal(buffered.status, 'failed');
    assert.equal(buffered.error?.code, 'server_error');
    assert.equal(buffered.output_text, 'You said: not kept either');
    await assert.rejects(client.responses.retrieve(buffered.id), OpenAI.NotFoundError);
  } finally {
    repo.keep = real;
  }
});

// Last: it deletes the stopped assistant the tests above use.
test('stored responses are bounded per assistant and deleted with it', async () => {
  const store = await anotherStore();
  try {
    const repo = new StoredResponseRepo(store.db, 3);
    const ids = [1, 2, 3, 4, 5].map((n) => `resp_bbbbbbbbbbbbbbbbbbbbbbbb_${String(n).padStart(16, '0')}`);
    // Newer than what the tests above stored for it.
    const from = Date.now() + 60_000;
    for (const [i, id] of ids.entries()) await repo.keep(bed.stoppedId, id, '{}', new Date(from + i * 1000));
    const kept = await Promise.all(ids.map(async (id) => (await repo.find(bed.stoppedId, id)) !== undefined));
    assert.deepEqual(kept, [false, false, true, true, true], 'the newest three');
    assert.notEqual(
      await repo.find(bed.id, (await client.responses.create({ model: MODEL, input: 'x' })).id),
      undefined,
    );
    assert.equal((await bed.e.api('DELETE', `/api/v1/assistants/${bed.stoppedId}`)).status, 200);
    const left = await store.db
      .selectFrom('stored_responses')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('deployment_id', '=', bed.stoppedId)
      .executeTakeFirstOrThrow();
    assert.equal(Number(left.n), 0, 'deleted with the assistant');
  } finally {
    await store.close();
  }
});
