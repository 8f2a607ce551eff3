// What run-tests.mjs reads from a test file's output: the spec reporter's counts and failures, and
// for a file stopped before its summary, the failures its TAP output already holds.
import { readFileSync } from 'node:fs';

/** node's spec reporter closes with "ℹ tests N", "ℹ pass N", "ℹ fail N", "ℹ skipped N"… */
export function parseCounts(output) {
  const n = (name) => Number(output.match(new RegExp(`^ℹ ${name} (\\d+)$`, 'm'))?.[1] ?? 0);
  return {
    tests: n('tests'),
    pass: n('pass'),
    fail: n('fail'),
    skipped: n('skipped') + n('todo'),
    cancelled: n('cancelled'),
  };
}

/** Where a stopped file's output gives the failures its TAP output held. */
const SO_FAR = 'the failures before it was stopped (TAP):';

/**
 * The spec reporter's closing "failing tests" section, else a stopped file's failures from TAP, else
 * the output's end; at most 60 lines.
 */
export function failingTests(output) {
  const at = Math.max(output.lastIndexOf('✖ failing tests:'), output.lastIndexOf(SO_FAR));
  const lines = (at >= 0 ? output.slice(at) : output).trimEnd().split('\n');
  const shown = at >= 0 ? lines.slice(0, 60) : lines.slice(-30);
  return shown.map((l) => `    ${l}`).join('\n');
}

/**
 * The failures a file's TAP output holds (each "not ok" line and its YAML block: the error and its
 * stack), for a file stopped before its summary; empty when there are none. The spec reporter of
 * Node 22 and 24 prints an error only in that summary: a hook that failed and left the process
 * running showed as a bare name.
 */
export function failuresSoFar(tapFile) {
  let text;
  try {
    text = readFileSync(tapFile, 'utf8');
  } catch {
    return '';
  }
  const blocks = [...text.matchAll(/^ *not ok .*\n(?: +---\n[\s\S]*?\n +\.\.\.\n)?/gm)].map((m) => m[0]);
  return blocks.length ? `${SO_FAR}\n${blocks.join('')}` : '';
}
