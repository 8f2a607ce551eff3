// A promise given a deadline: past `ms` it rejects (the work itself is not cancelled; a caller
// that can abort passes its own signal). Readiness checks and the metrics scrape's wait for the
// local agent host use it.
export function within<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}
