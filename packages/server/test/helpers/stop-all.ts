import type { TestContext } from 'node:test';

/**
 * Runs every stop in order, each even when one before it failed, then fails with what failed. A
 * stop that threw used to leave the ones after it undone: a fake server or a child left open kept
 * the test file's process alive until the runner's timeout, and the failure was never printed.
 */
export async function stopAll(stops: ReadonlyArray<() => unknown>): Promise<void> {
  const errors: unknown[] = [];
  for (const stop of stops) {
    try {
      await stop();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length) throw new AggregateError(errors, errors.map((e) => (e as Error)?.message ?? String(e)).join('; '));
}

/**
 * `then`'s result, the rest of a rig's start after its first part is up; if it fails, `stop` (that
 * first part's) runs before the error goes on. The caller only learns of a rig whose start
 * finished, so its `after` hook could not stop a half-started one: a harness or an E2E left running
 * kept the file's process alive until the runner's timeout (found in review).
 */
export async function orStop<R>(stop: () => unknown, then: () => Promise<R>): Promise<R> {
  try {
    return await then();
  } catch (err) {
    await Promise.resolve()
      .then(stop)
      .catch(() => {});
    throw err;
  }
}

const stacks = new WeakMap<TestContext, Array<() => unknown>>();

/**
 * Stops what test `t` started once it ends, the last started first, as nested try/finally blocks
 * did: a harness whose jobs still call an alert receiver is closed before that receiver. node:test
 * runs a test's after hooks in the order they were added, the other way round (found in review).
 */
export function stopAfter(t: TestContext, stop: () => unknown): void {
  let stack = stacks.get(t);
  if (!stack) {
    const started: Array<() => unknown> = [];
    stacks.set(t, started);
    t.after(() => stopAll([...started].reverse()));
    stack = started;
  }
  stack.push(stop);
}
