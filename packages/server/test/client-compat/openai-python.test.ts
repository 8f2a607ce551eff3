// Client compatibility, issue 65: the official Python `openai` package, unchanged, at a
// deployment's base URL: responses.create plain, streamed and continued with
// previous_response_id, and chat.completions beside it. Installed by the test itself into a
// virtual environment under node_modules/.cache (once per clone), from the machine's pip index.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setUpCompatBed, MODEL, type CompatBed } from '../helpers/client-compat.js';

const run = promisify(execFile);
const VENV = join(import.meta.dirname, '../../../../node_modules/.cache/berth/python-openai');
const PYTHON = join(VENV, 'bin/python');

let bed: CompatBed;
setUpCompatBed((b) => {
  bed = b;
});

const ready = async () =>
  existsSync(PYTHON) &&
  (await run(PYTHON, ['-c', 'import openai']).then(
    () => true,
    () => false,
  ));

before(async () => {
  if (await ready()) return;
  // Made beside its final name and renamed into place: the SQLite and PostgreSQL runs of this file
  // start together, and two venvs made in one folder at once break each other's pip (it happened
  // in the clean-clone rehearsal). The loser of the rename keeps the winner's.
  mkdirSync(join(VENV, '..'), { recursive: true });
  const tmp = `${VENV}.tmp-${process.pid}`;
  await run('python3', ['-m', 'venv', '--clear', tmp]);
  // --retries 0: an index the machine cannot reach answers no at once instead of after minutes.
  const pip = ['-m', 'pip', 'install', '--quiet', '--retries', '0', '--timeout', '20', 'openai>=2,<4'];
  await run(join(tmp, 'bin/python'), pip, { timeout: 300_000 });
  try {
    renameSync(tmp, VENV);
  } catch {
    rmSync(tmp, { recursive: true, force: true });
  }
  assert.ok(await ready(), 'the Python openai package is installed');
});

const SCRIPT = `
import json, sys, openai
client = openai.OpenAI(base_url=sys.argv[1], api_key=sys.argv[2])
model = sys.argv[3]
out = {"version": openai.__version__}
first = client.responses.create(model=model, input="hello from python")
out["plain"] = {"id": first.id, "text": first.output_text, "status": first.status, "tokens": first.usage.total_tokens}
events, text = [], ""
with client.responses.stream(model=model, input="stream from python") as stream:
    for event in stream:
        events.append(event.type)
        if event.type == "response.output_text.delta":
            text += event.delta
    final = stream.get_final_response()
out["stream"] = {"text": text, "final": final.output_text, "first": events[0], "last": events[-1]}
second = client.responses.create(model=model, input="and again", previous_response_id=first.id)
out["continued"] = second.output_text
out["retrieved"] = client.responses.retrieve(first.id).output_text
chat = client.chat.completions.create(model=model, messages=[{"role": "user", "content": "chat from python"}])
out["chat"] = chat.choices[0].message.content
try:
    client.responses.create(model=model, input="x", previous_response_id="resp_doesnotexist")
except openai.BadRequestError as e:
    out["bad"] = {"status": e.status_code, "message": str(e.message)}
print(json.dumps(out))
`;

test('the Python openai package: responses plain, streamed, continued and retrieved; chat beside it', async () => {
  const { stdout } = await run(PYTHON, ['-c', SCRIPT, bed.base, bed.e.key, MODEL], { timeout: 60_000 });
  const out = JSON.parse(stdout);
  assert.match(out.version, /^[23]\./);
  assert.equal(out.plain.text, 'You said: hello from python');
  assert.equal(out.plain.status, 'completed');
  assert.ok(out.plain.tokens > 0);
  assert.equal(out.stream.text, 'You said: stream from python');
  assert.equal(out.stream.final, 'You said: stream from python');
  assert.deepEqual([out.stream.first, out.stream.last], ['response.created', 'response.completed']);
  assert.equal(out.continued, 'You said: and again');
  // The earlier turn reached the provider with the continued one (the last call was chat).
  const messages: Array<{ role: string; content: unknown }> = bed.e.provider.requests.at(-2)!.body.messages;
  assert.ok(
    messages.some((m) => String(m.content).includes('hello from python')),
    JSON.stringify(messages),
  );
  assert.equal(out.retrieved, 'You said: hello from python');
  assert.equal(out.chat, 'You said: chat from python');
  assert.equal(out.bad.status, 400);
  assert.match(out.bad.message, /previous_response_id "resp_doesnotexist"/);
});
