// The gateway check reads a request's path with targetPath, which skips the URL parser for plain
// targets. Whatever the spelling, it must read the path the URL parser reads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { targetPath } from '../src/platform/http/request-target.js';

/** What the URL parser makes of a target: the reading the fast path must agree with. */
function parsed(target: string): string | undefined {
  try {
    return decodeURIComponent(new URL(target, 'http://berth.invalid').pathname).replace(/\/{2,}/g, '/');
  } catch {
    return undefined;
  }
}

test('a target reads as the URL parser reads it, however it is spelled', () => {
  for (const [target, path] of [
    ['/gateway/v1/chat/completions', '/gateway/v1/chat/completions'],
    ['/gateway/v1/chat/completions?x=1#y', '/gateway/v1/chat/completions'],
    ['/gateway/%761/chat/completions', '/gateway/v1/chat/completions'],
    ['/gateway/v1/../v1/chat/completions', '/gateway/v1/chat/completions'],
    ['/gateway/v1/./chat', '/gateway/v1/chat'],
    ['/x/..%2Fgateway/v1', '/x/../gateway/v1'],
    ['/a//gateway/v1', '/a/gateway/v1'],
    ['/a\\..\\gateway/v1', '/gateway/v1'],
    ['http://h/gateway/v1', '/gateway/v1'],
    ['/', '/'],
    ['/api/v1/assistants/6f1c/chat/completions/', '/api/v1/assistants/6f1c/chat/completions/'],
  ] as const) {
    assert.equal(targetPath(target), path, target);
    assert.equal(parsed(target), path, `the reference reads ${target} so too`);
  }
  assert.equal(targetPath('/%zz'), undefined);
});

test('random spellings near the gateway path read the same with and without the fast path', () => {
  const pieces = [
    '/',
    '/',
    'g',
    'a',
    'W',
    'v',
    '1',
    '.',
    '..',
    '%',
    '%2F',
    '%76',
    '?',
    '#',
    '\\',
    '-',
    '_',
    '~',
    ' ',
    '\t',
    '@',
    ':',
    'é',
  ];
  const seeds = ['/gateway/v1', '/gateway/v1/chat/completions', '/api/v1/assistants/x/chat/completions', '/'];
  let seed = 30;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 50_000; i++) {
    let t = seeds[i % seeds.length]!;
    for (let k = random(4); k > 0; k--) {
      const at = random(t.length + 1);
      t = random(3) ? t.slice(0, at) + pieces[random(pieces.length)] + t.slice(at) : t.slice(0, at) + t.slice(at + 1);
    }
    assert.equal(targetPath(t), parsed(t), JSON.stringify(t));
  }
});
