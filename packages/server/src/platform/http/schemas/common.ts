import { Type, type TSchema } from 'typebox';
import { ERROR_STATUS, type ErrorCode } from '../../errors/codes.js';

/** A name or text field's pattern: no control characters (they would corrupt logs and pages). The
 *  error handler knows it to turn a mismatch into words a person can act on. */
export const NO_CONTROL_CHARS = '^[^\\u0000-\\u001f\\u007f]*$';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

export const DataEnvelope = <T extends TSchema>(data: T) => Type.Object({ data }, { additionalProperties: false });

/** One schema per list of codes: ~150 routes ask for the same few, and building each anew was ~10 ms
 *  of a cold start (docs/decisions/0027-scale.md, round 5). Schemas are never changed once built. */
const envelopes = new Map<string, ReturnType<typeof buildErrorEnvelope>>();

/** The error envelope of the spec, narrowed to the codes one response status can carry. */
export function ErrorEnvelope(codes: ErrorCode[]) {
  const key = codes.join(' ');
  let schema = envelopes.get(key);
  if (!schema) {
    schema = buildErrorEnvelope(codes);
    envelopes.set(key, schema);
  }
  return schema;
}

function buildErrorEnvelope(codes: ErrorCode[]) {
  return Type.Object(
    {
      error: Type.Object({
        code: codes.length === 1 ? Type.Literal(codes[0]!) : Type.Union(codes.map((c) => Type.Literal(c))),
        message: Type.String(),
        details: Type.Optional(Type.Unknown()),
      }),
    },
    { description: codes.join(' or ') },
  );
}

/** Groups a route's error codes by HTTP status for its response map. */
export function errorResponses(codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries([...byStatus].map(([status, cs]) => [status, ErrorEnvelope(cs)]));
}

export const DeploymentIdParams = Type.Object({
  deploymentId: Type.String({ format: 'uuid', description: 'Deployment identifier' }),
});

export const CallbackUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  pattern: '^[^\\u0000-\\u001f\\u007f]*$',
  description: 'https only; host must not be localhost, private, link-local or loopback.',
  'x-callback-url': true,
});
