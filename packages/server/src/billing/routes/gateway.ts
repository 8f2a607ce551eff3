// The model gateway's routes, for workers only (not part of the public API document).
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { ModelGateway } from '../gateway/model-gateway.js';
import type { SearchGateway } from '../gateway/search-gateway.js';
import { TRANSCRIPTION_BODY_LIMIT } from '../gateway/audio.js';
import { ImageBody, SpeechBody } from '../gateway/media-out.js';

export const GATEWAY_PATH = '/gateway/v1';
/** A turn's messages and, for a vision model, its images as data URLs (IMAGE_MAX_BYTES each). */
export const GATEWAY_BODY_LIMIT = 16 * 1024 * 1024;

export async function gatewayRoutes(app: FastifyInstance, gateway: ModelGateway) {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  app.post<{ Body: Buffer }>(
    `${GATEWAY_PATH}/chat/completions`,
    { schema: { hide: true }, bodyLimit: GATEWAY_BODY_LIMIT },
    (req, reply) => gateway.chat(req, reply, req.body),
  );
  // DESIGN §7.3: managed and unlimited voice notes, metered per minute in the same ledger as chat.
  app.addContentTypeParser(
    'multipart/form-data',
    { parseAs: 'buffer', bodyLimit: TRANSCRIPTION_BODY_LIMIT },
    (_req, body, done) => done(null, body),
  );
  app.post<{ Body: Buffer }>(
    `${GATEWAY_PATH}/audio/transcriptions`,
    { schema: { hide: true }, bodyLimit: TRANSCRIPTION_BODY_LIMIT },
    (req, reply) => gateway.transcribe(req, reply, req.body),
  );
}

const SearchBody = Type.Object(
  { query: Type.String({ minLength: 1, maxLength: 400, pattern: '\\S' }) },
  { additionalProperties: false },
);

/** POST /gateway/v1/search: web search for workers, metered per query (gateway/search-gateway.ts). */
export async function searchRoutes(app: FastifyInstance, search: SearchGateway) {
  app.post<{ Body: Static<typeof SearchBody> }>(
    `${GATEWAY_PATH}/search`,
    { schema: { hide: true, body: SearchBody } },
    async (req) => ({ data: await search.search(req.headers.authorization, req.body.query) }),
  );
}

/** DESIGN §9.5: voice replies and pictures for workers, metered like chat (gateway/media-out.ts). */
export async function mediaOutRoutes(app: FastifyInstance, gateway: ModelGateway) {
  app.post<{ Body: Static<typeof SpeechBody> }>(
    `${GATEWAY_PATH}/audio/speech`,
    { schema: { hide: true, body: SpeechBody } },
    (req, reply) => gateway.speech(req, reply, req.body),
  );
  app.post<{ Body: Static<typeof ImageBody> }>(
    `${GATEWAY_PATH}/images/generations`,
    { schema: { hide: true, body: ImageBody } },
    (req, reply) => gateway.image(req, reply, req.body),
  );
}
