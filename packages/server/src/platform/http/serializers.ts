// Response serialization: fast-json-stringify, given schemas simplified for writing. It picks a
// branch of an `anyOf` by validating the value against each branch (Ajv, regular expressions of
// formats included), which for our nullable strings and string enums cost more per answer than
// the rest of the read path's serialization. The value is ours and already valid; what the writer
// needs is its JSON type. Validation, the OpenAPI document and the types keep the full schemas.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { type Compilations, once } from './lazy-compile.js';

type Schema = Record<string, unknown>;

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON type(s) an `anyOf` of primitives and null can produce, or undefined if it is more than that. */
function primitiveTypes(branches: unknown[]): string[] | undefined {
  const types = new Set<string>();
  for (const b of branches) {
    if (!isSchema(b) || typeof b.type !== 'string' || (b.type !== 'null' && !PRIMITIVE.has(b.type))) return undefined;
    types.add(b.type);
  }
  return [...types];
}

/** `schema` with every `anyOf` of primitives (string enums, nullable strings) written as a type list. */
export function forWriting(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forWriting);
  if (!isSchema(schema)) return schema;
  if (Array.isArray(schema.anyOf)) {
    const types = primitiveTypes(schema.anyOf);
    if (types) {
      const { anyOf: _, ...rest } = schema;
      return { ...rest, type: types.length === 1 ? types[0] : types };
    }
  }
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = forWriting(v);
  return out;
}

type Factory = ReturnType<typeof SerializerSelector>;

export function buildSerializer(compilations: Compilations): Factory {
  const factory = SerializerSelector();
  return (externalSchemas, options) => {
    // Compiled on a route's first answer with that status (lazy-compile.ts).
    const compile = once(() =>
      factory(Object.fromEntries(Object.entries(externalSchemas ?? {}).map(([k, v]) => [k, forWriting(v)])), options),
    );
    return (route) =>
      compilations.onFirstCall(() => compile()({ ...route, schema: forWriting(route.schema) as typeof route.schema }));
  };
}
