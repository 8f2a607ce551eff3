// The app's Ajv does not check route schemas against JSON Schema's meta-schema (compiling that
// meta-schema was most of building the app at start, docs/decisions/0027-scale.md): this test does,
// for every schema Fastify hands the validator compiler (after listening or on a route's first
// request, http/lazy-compile.ts), and that each compiled.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Ajv } from 'ajv';
import { startHarness } from './helpers/harness.js';

const require = createRequire(import.meta.url);
// The class Fastify's validator pool instantiates (the same module instance the app loads).
const ValidatorCompiler = require('@fastify/ajv-compiler/lib/validator-compiler.js') as {
  prototype: { buildValidatorFunction(route: { schema: unknown; url: string; httpPart: string }): unknown };
};

test('every route schema the app compiles is a valid JSON Schema (draft-07 meta-schema)', async () => {
  const seen: Array<{ schema: unknown; where: string }> = [];
  const failed: string[] = [];
  const original = ValidatorCompiler.prototype.buildValidatorFunction;
  ValidatorCompiler.prototype.buildValidatorFunction = function (route) {
    const where = `${route.url} ${route.httpPart}`;
    seen.push({ schema: route.schema, where });
    try {
      return original.call(this, route);
    } catch (err) {
      failed.push(`${where}: ${(err as Error).message}`);
      throw err;
    }
  };
  const h = await startHarness();
  try {
    await h.inject({ method: 'GET', url: '/healthz' });
    // The background compile begins a moment after the server listens (an app that only injects
    // compiles on each route's first use): listen, then wait for every validator no request needed.
    await h.runtime.app.listen({ port: 0, host: '127.0.0.1' });
    await h.runtime.compiled;
  } finally {
    ValidatorCompiler.prototype.buildValidatorFunction = original;
    await h.close();
  }
  assert.ok(seen.length > 50, `only ${seen.length} route schemas were compiled`);
  assert.deepEqual(failed, []);
  const meta = new Ajv({ strict: false });
  const invalid = seen.filter(({ schema }) => !meta.validateSchema(schema as object));
  assert.deepEqual(
    invalid.map(({ where }) => where),
    [],
  );
});
