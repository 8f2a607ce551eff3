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
