import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callbackUrlProblem, isPublicAddress } from '../src/domain/callback-url.js';

const strict = { allowInsecure: false };

test('public https URLs are accepted', () => {
  for (const url of [
    'https://example.com/hooks/berth',
    'https://hooks.example.org:8443/x?y=1',
    'https://8.8.8.8/cb',
    'https://[2606:4700:4700::1111]/cb',
    'https://[::ffff:8.8.8.8]/',
  ]) {
    assert.equal(callbackUrlProblem(url, strict), undefined, url);
  }
});

test('internal hosts are refused, literal IPv4 and IPv6 in every spelling', () => {
  const refused = [
    'https://localhost/x',
    'https://LOCALHOST./x',
    'https://api.localhost/x',
    'https://127.0.0.1/',
    'https://127.1.2.3/',
    'https://2130706433/',
    'https://0x7f000001/',
    'https://0177.0.0.1/',
    'https://10.0.0.1/',
    'https://172.16.5.4/',
    'https://172.31.255.255/',
    'https://192.168.1.1/',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fd00::1]/',
    'https://[fc00::abcd]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::127.0.0.1]/',
    'https://intranet/',
  ];
  for (const url of refused) assert.ok(callbackUrlProblem(url, strict), `${url} must be refused`);
});

test('scheme, length and credentials', () => {
  assert.match(callbackUrlProblem('http://example.com/', strict)!, /https/);
  assert.match(callbackUrlProblem('ftp://example.com/', strict)!, /https/);
  assert.match(callbackUrlProblem('not a url', strict)!, /absolute URL/);
  assert.match(callbackUrlProblem(`https://example.com/${'a'.repeat(2048)}`, strict)!, /2048/);
  assert.equal(
    callbackUrlProblem(`https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`, strict),
    undefined,
  );
  assert.match(callbackUrlProblem('https://user:pw@example.com/', strict)!, /credentials/);
});

test('CALLBACK_ALLOW_INSECURE admits http and loopback for development', () => {
  const dev = { allowInsecure: true };
  assert.equal(callbackUrlProblem('http://127.0.0.1:3000/hook', dev), undefined);
  assert.equal(callbackUrlProblem('http://localhost/hook', dev), undefined);
  assert.ok(callbackUrlProblem('ftp://localhost/hook', dev));
});

test('isPublicAddress', () => {
  assert.equal(isPublicAddress('1.1.1.1'), true);
  assert.equal(isPublicAddress('192.168.0.10'), false);
  assert.equal(isPublicAddress('::ffff:192.168.0.10'), false);
  assert.equal(isPublicAddress('not-an-ip'), false);
});
