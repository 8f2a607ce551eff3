// API key authentication. Endpoints 1-9 take only X-API-Key; the chat and model endpoints also
// take "Authorization: Bearer", so stock OpenAI clients work unchanged.
import type { FastifyRequest } from 'fastify';
import { AppError } from '../errors/app-error.js';

export type AuthMode = 'apiKey' | 'apiKeyOrBearer';

declare module 'fastify' {
  interface FastifyRequest {
    userId: string;
  }
  interface FastifyContextConfig {
    auth?: AuthMode;
  }
}

export function extractKey(req: FastifyRequest, mode: AuthMode): string {
  const header = req.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (apiKey) return apiKey;
  const authz = req.headers.authorization;
  if (mode === 'apiKeyOrBearer') {
    const m = authz ? /^Bearer\s+(\S+)\s*$/i.exec(authz) : null;
    if (m) return m[1]!;
    throw new AppError(
      'UNAUTHORIZED',
      'An API key is required: send it as "X-API-Key: <key>" or "Authorization: Bearer <key>".',
    );
  }
  throw new AppError(
    'UNAUTHORIZED',
    authz
      ? 'This endpoint takes the API key in the X-API-Key header, not in Authorization.'
      : 'An API key is required: send it in the X-API-Key header.',
  );
}
