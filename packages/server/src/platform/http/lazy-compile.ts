// Compiling every route's serializers (fast-json-stringify) and validators (Ajv) when the app is
// built was about a third of the control plane's cold start. They are compiled after the server
// listens instead, one at a time between other work (`compileRemaining`), or on a route's first
// request or answer if that comes sooner: synchronously, once, the same function after that. The
// stand-in copies a validator's `errors`, which Fastify reads after a failed call
// (docs/decisions/0027-scale.md).

type Compiled = ((...args: never[]) => unknown) & { errors?: unknown };

/**
 * One app's compilations no request has needed yet. Each app has its own: with one set for the
 * process, an app that closed left its routes' compilations to the next app's background compile
 * (every test file that builds several control planes compiled all of theirs, and its process
 * lived on compiling for seconds after its last test).
 */
export class Compilations {
  private readonly pending = new Set<() => unknown>();
  private stopped = false;

  /** A stand-in for `compile()`'s result that compiles on its first call, or when compileRemaining gets to it. */
  onFirstCall<F extends Compiled>(compile: () => F): F {
    const pending = this.pending;
    let fn: F | undefined;
    const ensure = () => {
      pending.delete(ensure);
      fn ??= compile();
      return fn;
    };
    pending.add(ensure);
    const standIn = function (this: unknown, ...args: Parameters<F>) {
      const f = fn ?? ensure();
      const out = f.apply(this, args);
      standIn.errors = f.errors;
      return out;
    } as unknown as F & { errors?: unknown; schemaEnv?: unknown };
    // Fastify hands Ajv's validators their parent (`schemaEnv` present), which lets Ajv coerce a root value.
    standIn.schemaEnv = true;
    return standIn;
  }

  /**
   * Compiles what is still pending, one at a time, each followed by a pause as long as it took: the
   * background compile takes at most half of a core, so requests are served in between and the
   * processes a start spawns (the agent host, its workers) are not starved on a small machine. A
   * schema that fails to compile is left to its route's first request, which answers the error.
   * It begins once `after` settles (npm start: a moment after the server listens, so the first
   * request is not queued behind an Ajv instance's creation and a compile or two), and ends at
   * `stop()` (the app closed: nothing will call its routes again).
   */
  compileRemaining(after: Promise<unknown> = Promise.resolve()): Promise<void> {
    return new Promise((done) => {
      const next = () => {
        const first = this.pending.values().next();
        if (first.done || this.stopped) return done();
        const began = performance.now();
        try {
          first.value();
        } catch {
          /* answered on the route's first request */
        }
        setTimeout(next, performance.now() - began);
      };
      void after.then(() => setImmediate(next));
    });
  }

  /** Ends the background compile after its current step; a route called later still compiles its own. */
  stop(): void {
    this.stopped = true;
  }
}

/** Builds `make()` when first asked for it. */
export function once<T>(make: () => T): () => T {
  let made: { v: T } | undefined;
  return () => {
    made ??= { v: make() };
    return made.v;
  };
}
