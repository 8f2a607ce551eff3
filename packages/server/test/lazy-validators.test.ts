// Route validators are compiled after the server listens or on the route's first request
// (http/lazy-compile.ts): a request that comes first gets the validator compiled there and then,
// with the answer it would have had from one compiled at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { buildValidator } from '../src/platform/http/validators.js';
import { Compilations } from '../src/platform/http/lazy-compile.js';

const schema = {
  type: 'object',
  properties: { limit: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};
// The app's Ajv options (app.ts).
const options = {
  customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, validateSchema: false },
};
// The class Fastify's validator pool instantiates (the same module instance validators.ts loads).
const ValidatorCompiler = createRequire(import.meta.url)('@fastify/ajv-compiler/lib/validator-compiler.js') as {
  prototype: { buildValidatorFunction(route: unknown): unknown };
};
type Validate = ((data: unknown, cx?: unknown) => boolean) & { errors?: Array<{ instancePath: string }> | null };

function validatorFor(httpPart: string, compilations = new Compilations()): Validate {
  const factory = buildValidator(compilations)({}, options as never);
  return factory(
    { schema, method: 'GET', url: '/things', httpPart } as never,
    undefined as never,
  ) as unknown as Validate;
}

test('a validator first called before the background compile reaches it answers as a compiled one', () => {
  const validate = validatorFor('body');
  // Fastify reads `errors` after a failed call: the stand-in must carry the compiled validator's.
  assert.equal(validate({ limit: 0 }), false);
  assert.equal(validate.errors?.[0]?.instancePath, '/limit');
  assert.equal(validate({ limit: 5 }), true);
  assert.equal(validate.errors, null);
  // JSON bodies are not coerced: "5" is the client's mistake.
  assert.equal(validate({ limit: '5' }), false);
  assert.equal(validate({ limit: 5, other: 1 }), false);
});

test('a query string validator coerces digits on its first call, as compiled at start', async () => {
  const compilations = new Compilations();
  const validate = validatorFor('querystring', compilations);
  const request = { query: { limit: '7' } };
  assert.equal(validate(request.query, { parentData: request, parentDataProperty: 'query' }), true);
  assert.deepEqual(request.query, { limit: 7 });
  assert.equal(validate({ limit: 'x' }), false);
  assert.equal(validate.errors?.[0]?.instancePath, '/limit');
  // The background compile then finds nothing left for it and the same function keeps answering.
  await compilations.compileRemaining();
  assert.equal(validate({ limit: '3' }), true);
});

test('the background compile compiles validators no request needed yet', async () => {
  let compiled = 0;
  const compilations = new Compilations();
  const factory = buildValidator(compilations)({}, options as never);
  const routes = ['/a', '/b', '/c'].map(
    (url) =>
      factory({ schema, method: 'GET', url, httpPart: 'body' } as never, undefined as never) as unknown as Validate,
  );
  const build = ValidatorCompiler.prototype.buildValidatorFunction;
  ValidatorCompiler.prototype.buildValidatorFunction = function (route) {
    compiled++;
    return build.call(this, route);
  };
  try {
    await compilations.compileRemaining();
  } finally {
    ValidatorCompiler.prototype.buildValidatorFunction = build;
  }
  assert.equal(compiled, 3);
  assert.equal(routes[2]!({ limit: 2 }), true);
});

test('the background compile waits for its start signal (npm start: a moment after listening), so a first request is not queued behind it', async () => {
  let compiled = 0;
  const compilations = new Compilations();
  const factory = buildValidator(compilations)({}, options as never);
  factory({ schema, method: 'GET', url: '/d', httpPart: 'body' } as never, undefined as never);
  const build = ValidatorCompiler.prototype.buildValidatorFunction;
  ValidatorCompiler.prototype.buildValidatorFunction = function (route) {
    compiled++;
    return build.call(this, route);
  };
  try {
    let listening!: () => void;
    const done = compilations.compileRemaining(new Promise<void>((r) => (listening = r)));
    // Waits on the wall clock: compiling early would start at once; not compiling leaves no event.
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(compiled, 0, 'nothing compiled before the signal');
    listening();
    await done;
  } finally {
    ValidatorCompiler.prototype.buildValidatorFunction = build;
  }
  assert.equal(compiled, 1);
});

test("a closed app's compilations are its own: another app's background compile leaves them, and its own stops at close", async () => {
  let compiled = 0;
  const closed = new Compilations();
  const open = new Compilations();
  for (const url of ['/e', '/f', '/g'])
    buildValidator(closed)({}, options as never)(
      { schema, method: 'GET', url, httpPart: 'body' } as never,
      undefined as never,
    );
  const mine = buildValidator(open)({}, options as never)(
    { schema, method: 'GET', url: '/h', httpPart: 'body' } as never,
    undefined as never,
  ) as unknown as Validate;
  const build = ValidatorCompiler.prototype.buildValidatorFunction;
  ValidatorCompiler.prototype.buildValidatorFunction = function (route) {
    compiled++;
    return build.call(this, route);
  };
  try {
    closed.stop();
    await closed.compileRemaining();
    assert.equal(compiled, 0, 'a stopped app compiles nothing more');
    await open.compileRemaining();
    assert.equal(compiled, 1, "the open app's background compile compiled its own route only");
  } finally {
    ValidatorCompiler.prototype.buildValidatorFunction = build;
  }
  assert.equal(mine({ limit: 2 }), true);
});
