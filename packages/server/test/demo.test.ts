// `npm run demo` as a newcomer runs it: no token, key or network. It prints a first user and
// password and one active assistant; signed in, the person writes to the bot as a Telegram user
// through the dashboard's demo routes, and the API answers a chat too, all within a minute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { request } from 'undici';

const ROOT = resolve(import.meta.dirname, '../../..');

/** `npm run demo` in its own process group, and its BERTH_DEMO line once it prints one. */
function startDemo(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--conditions=berth-source', '--import', 'tsx', 'scripts/demo.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const io = { out: '', err: '' };
  child.stdout.setEncoding('utf8').on('data', (d: string) => (io.out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (io.err += d));
  const line = new Promise<string>((done, fail) => {
    child.stdout.on('data', () => {
      const m = /^BERTH_DEMO (.+)$/m.exec(io.out);
      if (m) done(m[1]!);
    });
    child.once('exit', () => fail(new Error(`the demo did not start:\n${io.out}\n${io.err}`)));
  });
  line.catch(() => {});
  return { child, io, line };
}

test('npm run demo answers a Telegram message and an API chat within 60 s of starting', {
  timeout: 120_000,
}, async () => {
  const started = Date.now();
  const { child, io, line: printed } = startDemo({ HOST: '127.0.0.1', DATA_DIR: '' });
  try {
    const line = await Promise.race([
      printed,
      new Promise<never>((_, fail) =>
        setTimeout(() => fail(new Error(`the demo did not start within 60 s:\n${io.out}\n${io.err}`)), 60_000).unref(),
      ),
    ]);
    const demo = JSON.parse(line) as {
      url: string;
      email: string;
      password: string;
      key: string;
      deploymentId: string;
    };
    assert.match(io.out, /sign in as demo@example\.com with password \S{8,}/);
    const dataDir = /sandbox data in (\S+)/.exec(io.err)?.[1];
    assert.ok(dataDir && existsSync(dataDir), io.err);

    // The printed password signs in.
    const login = await request(`${demo.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: demo.email, password: demo.password }),
    });
    const signedIn = (await login.body.json()) as { data: { csrfToken: string } };
    assert.equal(login.statusCode, 200);
    const cookie = String(login.headers['set-cookie']).split(';')[0]!;
    const asBrowser = { cookie, 'x-berth-csrf': signedIn.data.csrfToken, 'content-type': 'application/json' };

    // A Telegram message through the demo page's routes; the bot answers with a tool call's result.
    const sent = await request(`${demo.url}/api/demo/telegram`, {
      method: 'POST',
      headers: asBrowser,
      body: JSON.stringify({ text: 'what is 12*7?' }),
    });
    await sent.body.dump();
    assert.equal(sent.statusCode, 202);
    let transcript:
      | { messages: Array<{ from: string; text: string; media?: { kind: string; url: string } }> }
      | undefined;
    while (Date.now() - started < 60_000) {
      const res = await request(`${demo.url}/api/demo/telegram`, { headers: { cookie } });
      transcript = ((await res.body.json()) as { data: typeof transcript }).data;
      if (transcript?.messages.some((m) => m.from === 'bot' && m.text.includes('84'))) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const bot = transcript?.messages.find((m) => m.from === 'bot');
    assert.ok(bot?.text.includes('84'), `no answer in Telegram within 60 s: ${JSON.stringify(transcript)}`);
    assert.equal(transcript?.messages[0]?.from, 'user', 'the person’s message comes first');
    // DESIGN §9.5: the demo speaks every answer (a voice note, its text the caption) and draws when asked.
    assert.equal(bot?.media?.kind, 'voice', JSON.stringify(bot));
    assert.match(bot!.media!.url, /^data:audio\/ogg;base64,T2dnUw/, 'an OGG file');
    await request(`${demo.url}/api/demo/telegram`, {
      method: 'POST',
      headers: asBrowser,
      body: JSON.stringify({ text: 'draw a lighthouse' }),
    }).then((r) => r.body.dump());
    let photo: { url: string } | undefined;
    while (!photo && Date.now() - started < 60_000) {
      const res = await request(`${demo.url}/api/demo/telegram`, { headers: { cookie } });
      const t = ((await res.body.json()) as { data: typeof transcript }).data;
      photo = t?.messages.find((m) => m.media?.kind === 'photo')?.media;
      if (!photo) await new Promise((r) => setTimeout(r, 200));
    }
    assert.match(photo?.url ?? '', /^data:image\/png;base64,iVBORw0KGgo/, 'the picture arrives as a photo');

    // The API answers too, with the printed key.
    const chat = await request(`${demo.url}/api/v1/assistants/${demo.deploymentId}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'hello' }] }),
    });
    const completion = (await chat.body.json()) as { choices: Array<{ message: { content: string } }> };
    assert.equal(chat.statusCode, 200);
    assert.match(completion.choices[0]!.message.content, /\*\*Hello!\*\* I am the Berth demo model/);
    // On the chat API the picture is a Markdown image with a data: URL (decision 0033).
    const drawn = await request(`${demo.url}/api/v1/assistants/${demo.deploymentId}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demo.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'assistant-agent', messages: [{ role: 'user', content: 'draw a boat' }] }),
    });
    const picture = (await drawn.body.json()) as { choices: Array<{ message: { content: string } }> };
    assert.match(
      picture.choices[0]!.message.content,
      /!\[picture\.png\]\(data:image\/png;base64,iVBORw0KGgo[A-Za-z0-9+/=]+\)$/,
    );
    assert.ok(Date.now() - started < 60_000, 'within a minute of `npm run demo`');

    // Ctrl-C stops everything and removes the sandbox.
    process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => child.once('exit', r));
    assert.equal(existsSync(dataDir!), false, 'the sandbox data is removed');
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
});

test('the demo stays on loopback whatever HOST says, makes a DATA_DIR that does not exist, and removes the sandbox a killed demo left (issue 57)', {
  timeout: 120_000,
}, async () => {
  // A sandbox as a demo killed with -9 leaves it: its owner's pid is dead.
  const dead = spawnSync(process.execPath, ['-e', '']).pid;
  const stale = join(tmpdir(), `berth-demo-stale${process.pid}`);
  mkdirSync(stale, { recursive: true });
  writeFileSync(join(stale, 'demo.pid'), String(dead));
  writeFileSync(join(stale, 'demo-models.json'), '{}');
  const parent = mkdtempSync(join(tmpdir(), 'berth-demo-test-'));
  const dataDir = join(parent, 'not', 'yet');
  const { child, io, line: printed } = startDemo({ HOST: '0.0.0.0', DATA_DIR: dataDir });
  try {
    const line = await printed;
    const demo = JSON.parse(line) as { url: string };
    assert.equal(new URL(demo.url).hostname, '127.0.0.1', 'on loopback, not on every interface');
    assert.match(io.err, /HOST=0\.0\.0\.0 ignored/);
    assert.ok(existsSync(join(dataDir, 'demo-models.json')), 'the DATA_DIR was made');
    assert.equal(existsSync(stale), false, "the killed demo's sandbox is removed");
    process.kill(-child.pid!, 'SIGINT');
    await new Promise((r) => child.once('exit', r));
    assert.ok(existsSync(dataDir), "the person's own DATA_DIR is kept");
  } finally {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    rmSync(parent, { recursive: true, force: true });
    rmSync(stale, { recursive: true, force: true });
  }
});
