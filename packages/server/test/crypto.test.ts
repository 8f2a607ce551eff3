import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecretBox } from '../src/platform/crypto/secret-box.js';
import { resolveSecretsKey } from '../src/platform/crypto/secrets-key.js';
import { generateApiKey, hashApiKey } from '../src/platform/crypto/api-keys.js';

test('sealed secrets round-trip, differ every time and detect tampering', () => {
  const box = createSecretBox(Buffer.alloc(32, 3));
  const a = box.seal('123:secret');
  const b = box.seal('123:secret');
  assert.notEqual(a, b);
  assert.ok(!a.includes('secret'));
  assert.equal(box.open(a), '123:secret');
  const parts = a.split('.');
  parts[3] = Buffer.from('tampered').toString('base64url');
  assert.throws(() => box.open(parts.join('.')));
  assert.throws(() => createSecretBox(Buffer.alloc(32, 4)).open(a));
});

test('the embedded secrets key is generated once, private, and reused', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-key-'));
  const k1 = resolveSecretsKey(undefined, dir);
  const k2 = resolveSecretsKey(undefined, dir);
  assert.equal(k1.length, 32);
  assert.deepEqual(k1, k2);
  assert.equal(statSync(join(dir, 'secrets.key')).mode & 0o777, 0o600);
  assert.equal(readFileSync(join(dir, 'secrets.key'), 'utf8').trim(), k1.toString('base64'));
  const configured = Buffer.alloc(32, 9);
  assert.equal(resolveSecretsKey(configured, dir), configured);
});

test('API keys are random, prefixed, and only their hash is kept', () => {
  const a = generateApiKey();
  const b = generateApiKey();
  assert.match(a.key, /^berth_[A-Za-z0-9]{40}$/);
  assert.notEqual(a.key, b.key);
  assert.equal(a.prefix, a.key.slice(0, 12));
  assert.equal(a.hash, hashApiKey(a.key));
  assert.match(a.hash, /^[0-9a-f]{64}$/);
});
