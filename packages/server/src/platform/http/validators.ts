// Request validation: JSON bodies (and headers and path parameters) are never coerced — a "5" where
// a number belongs is a client's mistake to hear about. A query string is text by nature, so its
// numbers are coerced from their digits: the schema of a query parameter can then say `integer`,
// and so can the OpenAPI document and every client generated from it (decision 0018).
import AjvCompiler from '@fastify/ajv-compiler';
import { type Compilations, once } from './lazy-compile.js';

export function buildValidator(compilations: Compilations): AjvCompiler.BuildCompilerFromPool {
  const pool = AjvCompiler();
  return (externalSchemas, options = {}) => {
    // Each Ajv instance is made when a route first needs it, and each route's validator is compiled
    // after the server listens or on the route's first request, whichever comes first: the same
    // validator, compiled synchronously on that request (lazy-compile.ts, docs/decisions/0027-scale.md).
    const strict = once(() => pool(externalSchemas, options));
    const coercing = once(() =>
      pool(externalSchemas, {
        ...options,
        mode: undefined,
        customOptions: { ...options.customOptions, coerceTypes: true },
      }),
    );
    // Fastify passes the route's { schema, method, url, httpPart }, though the type names a schema.
    return (route, meta) =>
      compilations.onFirstCall(() =>
        (typeof route === 'object' && 'httpPart' in route && route.httpPart === 'querystring' ? coercing : strict)()(
          route,
          meta,
        ),
      );
  };
}
