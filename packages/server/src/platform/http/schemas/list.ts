// Optional paging of the list endpoint (the spec leaves pagination open; decision 0016).
import { Type } from 'typebox';
import { Nullable } from './common.js';

export const ListQuery = Type.Object({
  // An integer (query strings are coerced from their digits: http/validators.ts), so generated
  // clients take a number.
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: 'Page size, 1-100 (default 50 with a cursor).' }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 512,
      description: 'Opaque: the nextCursor of the previous page.',
    }),
  ),
});

export const ListResult = Type.Object(
  {
    data: Type.Array(Type.Ref('DeploymentRecord')),
    nextCursor: Type.Optional(
      Nullable(Type.String({ description: 'Present when limit or cursor was given; null after the last page.' })),
    ),
  },
  { additionalProperties: false },
);
