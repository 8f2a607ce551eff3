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

/** The reporters of each file's process: spec on stdout, TAP to `tapFile` (read by failuresSoFar). */
export const reporterArgs = (tapFile) => [
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=tap',
  `--test-reporter-destination=${tapFile}`,
];

/** Where a stopped file's output gives the failures its TAP output held. */
const SO_FAR = 'the failures before it was stopped (TAP):';

/**
 * The spec reporter's closing "failing tests" section (at most 60 lines), else a stopped file's
 * failures from TAP (the first 20 lines of each: a long diff would push the next failure out), else
 * the output's last 30 lines.
 */
export function failingTests(output) {
  const spec = output.lastIndexOf('✖ failing tests:');
  const soFar = output.lastIndexOf(SO_FAR);
  let shown;
  if (soFar > spec) {
    const blocks = output.slice(soFar + SO_FAR.length).split(/^(?= *not ok )/m);
    shown = [SO_FAR, ...blocks.filter((b) => b.trim()).flatMap((b) => b.trimEnd().split('\n').slice(0, 20))];
  } else if (spec >= 0) shown = output.slice(spec).trimEnd().split('\n').slice(0, 60);
  else shown = output.trimEnd().split('\n').slice(-30);
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
  // A block ends at the `...` of its own indentation: an assertion's diff has `...` lines of its own.
  const blocks = [...text.matchAll(/^( *)not ok .*\n(?:\1 {2}---\n[\s\S]*?\n\1 {2}\.\.\.\n)?/gm)].map((m) => m[0]);
  return blocks.length ? `${SO_FAR}\n${blocks.join('')}` : '';
}
