// Teaches Fastify's Ajv the "x-callback-url" keyword, so the callbackUrl rules are part of the
// schema (and show in the OpenAPI document) while the host checks stay in plain code.
import type { Ajv } from 'ajv';
import { callbackUrlProblem, type CallbackUrlPolicy } from '../../domain/callback-url.js';

export function callbackUrlKeyword(policy: CallbackUrlPolicy) {
  return (ajv: Ajv) => {
    const validate = (_schema: unknown, data: unknown): boolean => {
      const problem = typeof data === 'string' ? callbackUrlProblem(data, policy) : undefined;
      (validate as unknown as { errors: unknown[] }).errors = problem
        ? [{ keyword: 'x-callback-url', message: problem, params: {} }]
        : [];
      return !problem;
    };
    ajv.addKeyword({ keyword: 'x-callback-url', type: 'string', errors: true, validate });
    return ajv;
  };
}
