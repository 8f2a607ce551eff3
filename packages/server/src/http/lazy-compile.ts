// Compiling every route's validators (Ajv) and serializers (fast-json-stringify) when the app is
// built was about a third of the control plane's cold start, for routes most processes never
// serve. A compiled function is made on the route's first request instead (once; the same
// function after that). Ajv's validators report through a property, `errors`, read after a
// failed call, so the stand-in copies it across.

type Compiled = ((...args: never[]) => unknown) & { errors?: unknown };

/** A stand-in for `compile()`'s result that compiles on its first call. */
export function onFirstCall<F extends Compiled>(compile: () => F): F {
  let fn: F | undefined;
  const standIn = function (this: unknown, ...args: Parameters<F>) {
    fn ??= compile();
    const out = fn.apply(this, args);
    standIn.errors = fn.errors;
    return out;
  } as unknown as F & { errors?: unknown; schemaEnv?: unknown };
  // Fastify hands Ajv's validators their parent (`schemaEnv` present), which lets Ajv coerce a root value.
  standIn.schemaEnv = true;
  return standIn;
}

/** Builds `make()` when first asked for it. */
export function once<T>(make: () => T): () => T {
  let made: { v: T } | undefined;
  return () => {
    made ??= { v: make() };
    return made.v;
  };
}
