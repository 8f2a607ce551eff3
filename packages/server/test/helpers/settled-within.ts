/** How `work` had settled after `ms`: resolved (its value), rejected (its error), or still waiting. */
export type Settled<T> = { state: 'resolved'; value: T } | { state: 'rejected'; err: unknown } | { state: 'waiting' };

/** Waits at most `ms` for `work`: a test of "this ends" fails by name instead of hanging its file. */
export async function settledWithin<T>(ms: number, work: Promise<T>): Promise<Settled<T>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work.then(
        (value): Settled<T> => ({ state: 'resolved', value }),
        (err: unknown): Settled<T> => ({ state: 'rejected', err }),
      ),
      new Promise<Settled<T>>((ok) => {
        timer = setTimeout(() => ok({ state: 'waiting' }), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
