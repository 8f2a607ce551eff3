// A deadline that really fires. `AbortSignal.any([signal, AbortSignal.timeout(ms)])` holds its
// timeout signal only weakly, and Node 20 may garbage-collect that signal before it fires
// (nodejs/node#57736): the deadline then never comes (issue 57: a page that never answered held a
// chat for 180 s until the proxy's 502). Here a timer of our own holds the controller strongly
// until it fires or `clear()` runs, and the parents' listeners go with `clear()` too, so a
// long-lived parent (a host's stop signal) does not gather one listener per call.

export interface Deadline {
  /** Aborts when the time is up (a `TimeoutError` reason) or when a parent aborts (its reason). */
  readonly signal: AbortSignal;
  /** Whether the time ran out (not a parent's abort). */
  readonly timedOut: boolean;
  /** Stops the timer and lets go of the parents; call it in a `finally`. */
  clear(): void;
}

export function deadline(ms: number, ...parents: (AbortSignal | undefined)[]): Deadline {
  const controller = new AbortController();
  const linked = parents.filter((p): p is AbortSignal => p !== undefined);
  let timedOut = false;
  const onParent = (e: Event) => {
    clear();
    controller.abort((e.target as AbortSignal).reason);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    clear();
    controller.abort(new DOMException(`The operation timed out after ${ms} ms.`, 'TimeoutError'));
  }, ms);
  // Like AbortSignal.timeout: the deadline alone does not keep the process up. An unref'd timer is
  // still held by the timer list, and through its callback the controller.
  timer.unref();
  function clear() {
    clearTimeout(timer);
    for (const p of linked) p.removeEventListener('abort', onParent);
  }
  for (const p of linked) {
    if (p.aborted) {
      clear();
      controller.abort(p.reason);
      break;
    }
    p.addEventListener('abort', onParent, { once: true });
  }
  return {
    signal: controller.signal,
    get timedOut() {
      return timedOut;
    },
    clear,
  };
}
