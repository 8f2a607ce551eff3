// The one reading of "Authorization: Bearer <token>" the control plane (API keys on chat, the
// gateways' credentials, /metrics) and the agent (gateway and admin tokens) share, table-driven.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bearerMatches, bearerToken } from '@berth/contracts/bearer';

const table: Array<[string | undefined, string | undefined, string]> = [
  ['Bearer tok_123', 'tok_123', 'the form every SDK sends'],
  ['bearer tok_123', 'tok_123', 'the scheme is case-insensitive'],
  ['BEARER  tok_123', 'tok_123', 'more than one space after the scheme'],
  ['Bearer tok_123 ', 'tok_123', 'trailing white space'],
  [undefined, undefined, 'no header'],
  ['', undefined, 'an empty header'],
  ['Bearer', undefined, 'the scheme alone'],
  ['Bearer ', undefined, 'the scheme and a space'],
  ['Basic tok_123', undefined, 'another scheme'],
  ['Bearertok_123', undefined, 'no space after the scheme'],
  ['Bearer tok 123', undefined, 'a token with a space in it'],
  [' Bearer tok_123', undefined, 'white space before the scheme'],
];

for (const [header, token, why] of table) {
  test(`bearerToken(${JSON.stringify(header)}) is ${JSON.stringify(token)}: ${why}`, () => {
    assert.equal(bearerToken(header), token);
  });
}

test('bearerMatches takes only the exact token, in any accepted form of the header', () => {
  assert.equal(bearerMatches('Bearer s3cret-token', 's3cret-token'), true);
  assert.equal(bearerMatches('bearer  s3cret-token', 's3cret-token'), true);
  assert.equal(bearerMatches('Bearer s3cret-token', 's3cret-tokenx'), false, 'a longer token');
  assert.equal(bearerMatches('Bearer s3cret-tokenx', 's3cret-token'), false, 'a longer header');
  assert.equal(bearerMatches('Bearer s3cret', 's3cret-token'), false, 'a prefix');
  assert.equal(bearerMatches(undefined, 's3cret-token'), false, 'no header');
  assert.equal(bearerMatches('Bearer ', ''), false, 'an empty token never matches');
  assert.equal(bearerMatches('Basic s3cret-token', 's3cret-token'), false, 'another scheme');
});
