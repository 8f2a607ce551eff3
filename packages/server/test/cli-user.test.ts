// The user CLI as a user runs it, against a real control plane with a real agent host and the
// loopback fakes: each command in-process through the CLI's run() (helpers/cli.ts), with no
// terminal, so every command must finish on its own (a hang fails after 60 s); the terminal tests
// at the end run the real bin under a pty.
import { EventEmitter } from 'node:events';
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { BERTH_BIN, runBerth, type Run } from './helpers/cli.js';
import { startE2E, type E2E, MODEL_KEY } from './helpers/e2e.js';
import { tempDirForFile } from './helpers/temp-dir.js';
import { REFUSED_PORT } from './helpers/callback-receiver.js';

const BOT = '7200000002:AAcliFakeBotTokenForTheUserCliTests_xyz';
let e: E2E;
const configHome = tempDirForFile('berth-cli-home-');

function berth(args: string[], opts: { env?: Record<string, string | undefined>; input?: string } = {}): Promise<Run> {
  return runBerth(args, { url: e.url, configHome, ...opts });
}

const configFile = () => join(configHome, 'berth', 'config.json');
const withKey = (key = e.key) => ({ env: { BERTH_API_KEY: key } });

before(async () => {
  e = await startE2E();
  e.tg.addBot(BOT);
});
after(async () => {
  await e.close();
});

test('login refuses a wrong key, saves a good one 0600 in a 0700 dir, logout forgets it', async () => {
  const wrong = await berth(['login', '--key', 'berth_thisKeyDoesNotExistOnTheServer000000000']);
  assert.equal(wrong.status, 3, wrong.stderr);
  assert.match(wrong.stderr, /refused the API key.*berth login/);
  assert.equal(existsSync(configFile()), false, 'a refused key is never saved');

  const noKey = await berth(['assistants', 'list']);
  assert.equal(noKey.status, 3);
  assert.match(noKey.stderr, /no API key: run berth login/);

  const empty = await berth(['login']);
  assert.equal(empty.status, 2, 'no terminal and nothing on stdin: a usage error, not a wait');
  assert.match(empty.stderr, /pass --key, pipe it on stdin/);

  // The key from stdin: it never appears in argv, and never on stdout or stderr.
  const ok = await berth(['login'], { input: `${e.key}\n` });
  assert.equal(ok.status, 0, ok.stderr);
  assert.ok(!ok.stdout.includes(e.key) && !ok.stderr.includes(e.key));
  assert.equal(statSync(configFile()).mode & 0o777, 0o600);
  assert.equal(statSync(join(configHome, 'berth')).mode & 0o777, 0o700);
  assert.deepEqual(JSON.parse(readFileSync(configFile(), 'utf8')), { apiKey: e.key });

  const who = await berth(['keys', 'whoami', '--json']);
  assert.equal(who.status, 0, who.stderr);
  const whoJson = JSON.parse(who.stdout);
  assert.deepEqual(whoJson, {
    url: e.url,
    prefix: e.key.slice(0, 12),
    source: 'config',
    valid: true,
    assistants: 0,
    email: whoJson.email,
    organization: null,
    key: { id: whoJson.key.id, name: whoJson.key.name, prefix: e.key.slice(0, whoJson.key.prefix.length) },
  });
  assert.match(whoJson.email, /^e2e-\d+@example\.com$/);
  const list = await berth(['assistants', 'list', '--json']);
  assert.deepEqual(JSON.parse(list.stdout), [], 'the saved key is used');

  // BERTH_API_KEY wins over the saved key.
  const override = await berth(['keys', 'whoami'], withKey('berth_anotherKeyThatTheServerDoesNotKnow0000000'));
  assert.equal(override.status, 3);

  const out = await berth(['logout', '--json']);
  assert.deepEqual(JSON.parse(out.stdout), { loggedOut: true });
  assert.equal(existsSync(configFile()), false);
  const noName = await berth(['keys', 'create'], withKey());
  assert.equal(noName.status, 2);
  assert.match(noName.stderr, /needs --name/);
});

test('keys create (shown once) → list (prefix, last use) → revoke; the revoked key is refused', async () => {
  const created = await berth(['keys', 'create', '--name', 'ci runner'], withKey());
  assert.equal(created.status, 0, created.stderr);
  const secret = created.stdout.trim().split('\n').at(-1)!;
  assert.match(secret, /^berth_[A-Za-z0-9]{40}$/);
  assert.match(created.stderr, /shown once/);

  const asJson = await berth(['keys', 'create', '--name', 'second', '--json'], withKey());
  assert.equal(asJson.status, 0, asJson.stderr);
  const second = JSON.parse(asJson.stdout);
  assert.equal(second.name, 'second');
  assert.equal(second.organizationId, null);

  assert.equal((await berth(['keys', 'whoami'], withKey(secret))).status, 0, 'the new key works');
  const listed = await berth(['keys', 'list', '--json'], withKey(secret));
  assert.equal(listed.status, 0, listed.stderr);
  const keys = JSON.parse(listed.stdout);
  const ci = keys.find((k: { name: string }) => k.name === 'ci runner');
  assert.equal(ci.prefix, secret.slice(0, 12));
  assert.ok(ci.lastUsedAt, 'its use was recorded');
  assert.ok(!listed.stdout.includes(secret), 'a list never shows a secret');
  const table = await berth(['keys', 'list'], withKey());
  assert.match(table.stdout, /ci runner/);
  assert.ok(!table.stdout.includes(secret));

  const revoked = await berth(['keys', 'revoke', ci.id, '--json'], withKey());
  assert.equal(revoked.status, 0, revoked.stderr);
  assert.deepEqual(JSON.parse(revoked.stdout), { id: ci.id, revoked: true });
  // Revoked on this server at once (the key cache drops it); exit 3 is "the key was refused".
  assert.equal((await berth(['keys', 'list'], withKey(secret))).status, 3);
  const unknown = await berth(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], withKey());
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /NOT_FOUND/);
  assert.equal((await berth(['keys', 'revoke'], withKey())).status, 2);
});

test('buy → pay → activate → status --watch → chat (streaming, tool progress, sessions) → stop → delete', async () => {
  const login = await berth(['login', '--key', e.key, '--json']);
  assert.equal(login.status, 0, login.stderr);

  const bought = await berth(['assistants', 'buy', '--mode', 'byok', '--json']);
  assert.equal(bought.status, 0, bought.stderr);
  const { deploymentId: id, checkoutUrl } = JSON.parse(bought.stdout);
  assert.match(id, /^[0-9a-f-]{36}$/);

  // Not paid yet: the server's INVALID_STATE message is shown as is.
  const activateArgs = [
    'assistants',
    'activate',
    id,
    '--name',
    'CLI bot',
    '--provider',
    'fakeai',
    '--model',
    'fake-model-1',
    '--bot-token',
    '-',
    '--json',
  ];
  const early = await berth(activateArgs, { input: `${BOT}\n`, env: { BERTH_MODEL_KEY: MODEL_KEY } });
  const direct = await e.api('POST', `/api/v1/assistants/${id}/activate`, {
    name: 'x',
    modelProvider: 'fakeai',
    modelId: 'fake-model-1',
    messengerBotToken: BOT,
    modelApiKey: MODEL_KEY,
  });
  assert.equal(direct.json.error.code, 'INVALID_STATE');
  // The CLI checks payment before reading any secret, and says how to pay (cli-first-steps.test.ts).
  assert.equal(early.status, 1);
  assert.match(early.stderr, /not paid yet\. Pay first: berth assistants pay /);

  await request(`${e.url}${new URL(checkoutUrl).pathname}/complete`, { method: 'POST' }).then((r) => r.body.dump());
  const noToken = await berth(['assistants', 'activate', id, '--name', 'CLI bot', '--model', 'fake-model-1']);
  assert.equal(noToken.status, 2, 'a missing secret without a terminal is a usage error, not a prompt');
  assert.match(noToken.stderr, /--bot-token is required \(the token @BotFather gave you in Telegram\)/);

  const activated = await berth(activateArgs, { input: `${BOT}\n`, env: { BERTH_MODEL_KEY: MODEL_KEY } });
  assert.equal(activated.status, 0, activated.stderr);
  const record = JSON.parse(activated.stdout);
  assert.equal(record.status, 'deploying');
  assert.equal(record.name, 'CLI bot');
  for (const secret of [BOT, MODEL_KEY])
    assert.ok(!activated.stdout.includes(secret) && !activated.stderr.includes(secret), 'secrets never echoed');

  const watched = await berth(['status', id, '--watch', '--json']);
  assert.equal(watched.status, 0, watched.stderr);
  assert.deepEqual(JSON.parse(watched.stdout), (await e.api('GET', `/api/v1/assistants/${id}/status`)).json.data);
  assert.equal(JSON.parse(watched.stdout).status, 'active');
  assert.match(watched.stderr, /✓ active/);

  // --json prints exactly the API's data.
  const listed = await berth(['assistants', 'list', '--json']);
  assert.deepEqual(JSON.parse(listed.stdout), (await e.api('GET', '/api/v1/assistants')).json.data);
  const got = await berth(['assistants', 'get', id, '--json']);
  assert.deepEqual(JSON.parse(got.stdout), (await e.api('GET', `/api/v1/assistants/${id}`)).json.data);
  const human = await berth(['assistants', 'list']);
  assert.match(human.stdout, new RegExp(`${id}\\s+CLI bot\\s+active\\s+byok\\s+fakeai/fake-model-1`));

  // Streaming: the answer arrives in pieces, before the stream ends.
  e.provider.queue.push({ content: 'one two three four five', chunkDelayMs: 250 });
  const streamed = await berth(['chat', id, 'count please']);
  assert.equal(streamed.status, 0, streamed.stderr);
  assert.equal(streamed.stdout, 'one two three four five\n');
  assert.ok(streamed.chunks.length >= 3, `streamed in pieces: ${JSON.stringify(streamed.chunks)}`);
  assert.ok(streamed.chunks[0]!.length < 'one two three four five'.length);

  // Tool progress shows while the tool runs, on stderr; the answer on stdout.
  e.provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
    { content: 'Four.' },
  );
  const tool = await berth(['chat', id], { input: 'what is 2+2?\n' });
  assert.equal(tool.status, 0, tool.stderr);
  assert.equal(tool.stdout, 'Four.\n');
  assert.match(tool.stderr, /🧮 Calculating 2\+2/);

  // Sessions continue across calls with --session.
  await berth(['chat', id, '--session', 'cli-s1', 'my colour is teal']);
  const second = await berth(['chat', id, '--session', 'cli-s1', '--json', 'which colour?']);
  assert.equal(second.status, 0, second.stderr);
  const completion = JSON.parse(second.stdout);
  assert.equal(completion.object, 'chat.completion');
  assert.equal(completion.choices[0].message.content, 'You said: which colour?');
  const history = e.provider.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content);
  assert.ok(history.includes('my colour is teal'), 'the session kept the first turn');

  const emptyChat = await berth(['chat', id]);
  assert.equal(emptyChat.status, 2);
  assert.match(emptyChat.stderr, /no message/);

  // Update needs a stopped or failed deployment: the server's message, as is.
  const busy = await berth(['assistants', 'update', id, '--name', 'Renamed']);
  assert.equal(busy.status, 1);
  assert.match(busy.stderr, /INVALID_STATE: /);

  const stopped = await berth(['assistants', 'stop', id, '--json']);
  assert.equal(stopped.status, 0, stopped.stderr);
  assert.equal(JSON.parse(stopped.stdout).status, 'stopped');
  const watchStopped = await berth(['status', id, '--watch']);
  assert.equal(watchStopped.status, 5, 'a stopped deployment will not become active: no endless wait');
  assert.match(watchStopped.stderr, /redeploy/);

  const unconfirmed = await berth(['assistants', 'delete', id]);
  assert.equal(unconfirmed.status, 2, 'no terminal to ask on: refuses instead of waiting');
  assert.match(unconfirmed.stderr, /--yes/);
  assert.equal((await e.api('GET', `/api/v1/assistants/${id}`)).status, 200);

  const deleted = await berth(['assistants', 'delete', id, '--yes', '--json']);
  assert.equal(deleted.status, 0, deleted.stderr);
  assert.deepEqual(JSON.parse(deleted.stdout), { success: true });
  const gone = await berth(['assistants', 'get', id]);
  assert.equal(gone.status, 1);
  assert.match(gone.stderr, /NOT_FOUND: .*berth assistants list/);
  await berth(['logout']);
});

test('status --watch ends with exit 5 and the status message when the deployment fails', async () => {
  const id = await e.activate('7299999998:AAtokenThatTheFakeTelegramDoesNotKnow_q');
  const watched = await berth(['status', id, '--watch'], withKey());
  assert.equal(watched.status, 5, watched.stderr);
  assert.match(watched.stderr, /✗ failed: .*Telegram rejected the bot token/);
  assert.match(watched.stdout, /failed/);
});

test('errors say what to do next, with the documented exit codes', async () => {
  // A port nothing listens on, where one taken from listen(0) and closed could be any process's
  // again by the time the CLI connects.
  const down = await berth(['assistants', 'list'], {
    env: { BERTH_URL: `http://127.0.0.1:${REFUSED_PORT}`, BERTH_API_KEY: e.key },
  });
  assert.equal(down.status, 4);
  assert.match(down.stderr, /ECONNREFUSED|connection refused/i);
  assert.match(down.stderr, /is the server running at BERTH_URL\?/);

  const badUrl = await berth(['assistants', 'list'], { env: { BERTH_URL: 'ftp://example', BERTH_API_KEY: e.key } });
  assert.equal(badUrl.status, 2);
  assert.match(badUrl.stderr, /BERTH_URL/);

  const unknownFlag = await berth(['assistants', 'list', '--colour'], withKey());
  assert.equal(unknownFlag.status, 2);
  assert.match(unknownFlag.stderr, /--colour/);

  const badMode = await berth(['assistants', 'buy', '--mode', 'free'], withKey());
  assert.equal(badMode.status, 2);
  const invalid = await berth(
    ['assistants', 'redeploy', '00000000-0000-4000-8000-000000000000', '--callback-url', 'http://127.0.0.1/x'],
    withKey(),
  );
  assert.equal(invalid.status, 1);
  assert.match(invalid.stderr, /NOT_FOUND|INVALID_REQUEST/);

  const help = await berth(['--help']);
  assert.equal(help.status, 0);
  assert.match(
    help.stdout,
    /Exit codes:\n {2}0 .*\n {2}1 .*\n {2}2 .*\n {2}3 .*berth login\n {2}4 .*BERTH_URL\n {2}5 /,
  );
});

// A terminal, through util-linux `script` (a real pty): the hidden key prompt and the conversation.
// Every child is killed when the test ends, so a failed assertion cannot leave the suite waiting.
const terminals: ReturnType<typeof spawn>[] = [];
function onTerminal(args: string[], env: Record<string, string>) {
  const child = spawn(
    'script',
    ['-qfec', [process.execPath, BERTH_BIN, ...args].map((a) => `'${a}'`).join(' '), '/dev/null'],
    {
      env: { ...process.env, BERTH_URL: e.url, XDG_CONFIG_HOME: configHome, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  terminals.push(child);
  let out = '';
  const arrived = new EventEmitter();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    arrived.emit('data');
  });
  const exited = new Promise<number | null>((done) => child.on('close', done));
  // Resolves in the tick the text arrives (no polling interval), so what the test types next
  // reaches the terminal as early as a person pasting the moment a prompt shows.
  const waitFor = (text: string, from = 0) =>
    new Promise<number>((done, fail) => {
      const check = () => {
        if (!out.slice(from).includes(text)) return;
        clearTimeout(timer);
        arrived.off('data', check);
        done(out.length);
      };
      const timer = setTimeout(() => {
        arrived.off('data', check);
        child.kill('SIGKILL');
        fail(new Error(`no "${text}" in:\n${out}`));
      }, 30_000);
      arrived.on('data', check);
      check();
    });
  return { type: (text: string) => child.stdin.write(text), waitFor, exited, output: () => out };
}

test('on a terminal: login asks without echo; chat converses, /reset starts a new session', {
  skip: !existsSync('/usr/bin/script'),
}, async (t) => {
  t.after(() => {
    for (const c of terminals) if (c.exitCode === null) c.kill('SIGKILL');
  });
  const login = onTerminal(['login'], {});
  await login.waitFor('API key for');
  login.type(`${e.key}\r`);
  assert.equal(await login.exited, 0, login.output());
  assert.ok(!login.output().includes(e.key), 'the key is not echoed');
  assert.equal(JSON.parse(readFileSync(configFile(), 'utf8')).apiKey, e.key);

  const id = await e.activate(BOT);
  assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
  const chat = onTerminal(['chat', id], {});
  let at = await chat.waitFor('you> ');
  chat.type('my colour is teal\r');
  at = await chat.waitFor('You said: my colour is teal', at);
  chat.type('which colour?\r');
  at = await chat.waitFor('You said: which colour?', at);
  const turns = () => e.provider.requests.at(-1)!.body.messages.map((m: { content: string }) => m.content);
  assert.ok(turns().includes('my colour is teal'), 'turns of one run continue one session');
  chat.type('/reset\r');
  at = await chat.waitFor('New conversation', at);
  chat.type('again?\r');
  at = await chat.waitFor('You said: again?', at);
  assert.ok(!turns().includes('my colour is teal'), '/reset started a new session');
  chat.type('/exit\r');
  assert.equal(await chat.exited, 0, chat.output());
  await berth(['logout']);
});
