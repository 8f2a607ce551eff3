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

const PairingBody = Type.Object(
  {
    code: Type.String({ pattern: '^[A-Z0-9]{8}$' }),
    telegramUserId: Type.Integer({ minimum: -(2 ** 53 - 1), maximum: 2 ** 53 - 1 }),
    name: Type.Union([Type.String({ maxLength: 256 }), Type.Null()]),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);

const DecisionParams = Type.Object({
  code: Type.String({ pattern: '^[A-Za-z0-9]{8}$' }),
  decision: Type.Union([Type.Literal('approve'), Type.Literal('deny')]),
});

/**
 * POST /gateway/v1/pairings: a worker's notice of a new pairing code; POST …/pairings/{code}/approve
 * and …/deny: the owner's button pressed in a channel (settings/pairing-requested.ts).
 */
export async function pairingNoticeRoutes(
  app: FastifyInstance,
  announce: (authorization: string | undefined, body: Static<typeof PairingBody>) => Promise<{ announced: boolean }>,
  decide: (authorization: string | undefined, code: string, decision: 'approve' | 'deny') => Promise<{ success: true }>,
) {
  app.post<{ Body: Static<typeof PairingBody> }>(
    `${GATEWAY_PATH}/pairings`,
    { schema: { hide: true, body: PairingBody } },
    async (req) => ({ data: await announce(req.headers.authorization, req.body) }),
  );
  app.post<{ Params: Static<typeof DecisionParams> }>(
    `${GATEWAY_PATH}/pairings/:code/:decision`,
    { schema: { hide: true, params: DecisionParams } },
    async (req) => ({ data: await decide(req.headers.authorization, req.params.code, req.params.decision) }),
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
