// A forgotten password, as the README's first user meets it: a user made with `admin create-key`
// has no password; `admin reset-link` prints a one-time link that sets one. With SMTP_URL set,
// "Forgot password" mails the link (to a loopback SMTP server here); the answer never says
// whether an email has an account.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { freePort } from './helpers/callback-receiver.js';
import { join, resolve } from 'node:path';
import { request } from 'undici';
import { SMTPServer } from 'smtp-server';
import { startE2E, type E2E } from './helpers/e2e.js';
import { databaseEnv } from './helpers/database.js';
import { until } from './helpers/until.js';

const ROOT = resolve(import.meta.dirname, '../../..');
const mails: Array<{ to: string; body: string }> = [];
let smtp: SMTPServer;
let e: E2E;

before(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (d: string) => (body += d));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), body });
        done();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((r) => smtp.listen(port, '127.0.0.1', r));
  e = await startE2E({ SMTP_URL: `smtp://127.0.0.1:${port}`, SMTP_FROM: 'Berth <berth@example.com>' });
});
after(async () => {
  await e.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
  const res = await request(`${e.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined, headers: res.headers };
};

function adminCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env, DATA_DIR: e.dataDir, PUBLIC_BASE_URL: e.url, ...databaseEnv({ url: e.databaseUrl }) };
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(ROOT, 'packages/cli/bin/berth.js'), 'admin', ...args], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

const tokenOf = (link: string) => new URLSearchParams(new URL(link).hash.slice(1)).get('token')!;

test('admin reset-link gives the create-key user a password; the link works once', async () => {
  const email = (await e.api('GET', '/api/auth/whoami')).json.data.user.email as string;
  const noPassword = await post('/api/auth/login', { email, password: 'anything at all' });
  assert.equal(noPassword.status, 401, 'a create-key user has no password yet');

  const first = await adminCli(['reset-link', '--email', email]);
  const second = await adminCli(['reset-link', '--email', email]);
  assert.equal(second.status, 0, second.stderr);
  const link = second.stdout.trim();
  assert.match(link, new RegExp(`^${e.url}/reset-password#token=[A-Za-z0-9]{40}$`));
  assert.match(second.stderr, /one-time link to set a new password/);

  const older = await post('/api/auth/password-reset/complete', {
    token: tokenOf(first.stdout.trim()),
    password: 'the older link',
  });
  assert.equal(older.status, 400, 'a newer link replaces the older one');
  assert.equal(older.json.error.code, 'INVALID_INPUT');

  const set = await post('/api/auth/password-reset/complete', { token: tokenOf(link), password: 'my new passphrase' });
  assert.equal(set.status, 204);
  const again = await post('/api/auth/password-reset/complete', {
    token: tokenOf(link),
    password: 'another one please',
  });
  assert.equal(again.status, 400);
  assert.match(again.json.error.message, /used already or has expired/);
  const login = await post('/api/auth/login', { email, password: 'my new passphrase' });
  assert.equal(login.status, 200, JSON.stringify(login.json));

  const nobody = await adminCli(['reset-link', '--email', 'nobody-here@example.com']);
  assert.equal(nobody.status, 1);
  assert.match(nobody.stderr, /No account has the email nobody-here@example\.com/);
});

test('Forgot password mails a link that signs the other sessions out; an unknown email gets the same answer', async () => {
  const email = `reset-${Date.now()}@example.com`;
  const signup = await post('/api/auth/signup', { email, password: 'the first password' });
  assert.equal(signup.status, 201, JSON.stringify(signup.json));
  const cookie = String(signup.headers['set-cookie']).split(';')[0]!;

  const asked = await post('/api/auth/password-reset', { email: email.toUpperCase() });
  assert.equal(asked.status, 202);
  assert.deepEqual(asked.json, { data: { mailed: true } });
  const unknown = await post('/api/auth/password-reset', { email: 'stranger@example.com' });
  assert.deepEqual([unknown.status, unknown.json], [202, { data: { mailed: true } }], 'no hint that it has no account');

  const mail = await until('the mail', () => mails.find((m) => m.to === email));
  assert.ok(!mails.some((m) => m.to === 'stranger@example.com'), 'nothing is mailed to an email without an account');
  assert.match(mail.body, /Subject: Set a new Berth password/);
  // The text part is quoted-printable: soft line breaks and =3D for "=".
  const text = mail.body
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  const link = /(http:\/\/\S+\/reset-password#token=[A-Za-z0-9]+)/.exec(text)![1]!;
  const set = await post('/api/auth/password-reset/complete', {
    token: tokenOf(link),
    password: 'the second password',
  });
  assert.equal(set.status, 204, JSON.stringify(set.json));

  const old = await request(`${e.url}/api/auth/session`, { headers: { cookie } });
  await old.body.dump();
  assert.equal(old.statusCode, 401, 'the session from before the reset has ended');
  assert.equal((await post('/api/auth/login', { email, password: 'the first password' })).status, 401);
  assert.equal((await post('/api/auth/login', { email, password: 'the second password' })).status, 200);
});

test('without SMTP_URL the answer says to ask the operator, and nothing is stored', async () => {
  const plain = await startE2E();
  try {
    const res = await request(`${plain.url}/api/auth/password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'someone@example.com' }),
    });
    assert.equal(res.statusCode, 202);
    assert.deepEqual(await res.body.json(), { data: { mailed: false } });
    const bad = await request(`${plain.url}/api/auth/password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'x', extra: 1 }),
    });
    assert.equal(bad.statusCode, 400);
    await bad.body.dump();
  } finally {
    await plain.close();
  }
});
