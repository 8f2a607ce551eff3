// The chat body's depth check (chat/body.ts): an object or array 32 levels below the root is
// refused, one level less is not, whatever mixes objects and arrays; an extra parameter of any
// depth is refused with the same message and never overflows the stack.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkChatBody, MAX_BODY_DEPTH } from '@berth/contracts';

const withExtra = (extra: string) =>
  Buffer.from(`{"model":"assistant-agent","messages":[{"role":"user","content":"x"}],"extra":${extra}}`);
/** `levels` nested containers, the outermost at level 1 (it is the root's "extra"). */
const nested = (levels: number, open: (i: number) => string, close: (i: number) => string) => {
  let s = '1';
  for (let i = levels - 1; i >= 0; i--) s = `${open(i)}${s}${close(i)}`;
  return s;
};
const shapes = {
  objects: (n: number) =>
    nested(
      n,
      () => '{"a":',
      () => '}',
    ),
  arrays: (n: number) =>
    nested(
      n,
      () => '[0,',
      () => ']',
    ),
  mixed: (n: number) =>
    nested(
      n,
      (i) => (i % 2 ? '["s",' : '{"b":2,"a":'),
      (i) => (i % 2 ? ']' : '}'),
    ),
};

test('a container at level 31 passes, one at level 32 is refused', () => {
  for (const [name, make] of Object.entries(shapes)) {
    // The innermost container of `extra` nested n deep is at level n (the root is level 0).
    const ok = checkChatBody(withExtra(make(MAX_BODY_DEPTH - 1)));
    assert.equal(ok.ok, true, `${name}: ${ok.ok ? '' : ok.message}`);
    const deep = checkChatBody(withExtra(make(MAX_BODY_DEPTH)));
    assert.equal(deep.ok, false, name);
    assert.match(deep.ok ? '' : deep.message, /nests deeper than 32 levels/, name);
  }
});

test('5,000 levels are refused with the same message, not a stack overflow', () => {
  const deep = checkChatBody(withExtra(shapes.objects(5_000)));
  assert.match(deep.ok ? '' : deep.message, /nests deeper than 32 levels/);
  // Deep inside messages too: the depth check runs before the schema's.
  const inMessages = checkChatBody(
    Buffer.from(`{"model":"assistant-agent","messages":[{"role":"user","content":${shapes.arrays(40)}}]}`),
  );
  assert.match(inMessages.ok ? '' : inMessages.message, /nests deeper than 32 levels/);
});
