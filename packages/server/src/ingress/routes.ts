// Webhook ingress (DESIGN §9.1): GET/POST /hooks/whatsapp/{channelId} (Meta's handshake, signed
// updates) and POST /hooks/telegram/{channelId} (setWebhook's secret_token). Public routes: the
// platform proves itself by signature. The body is taken raw, whatever its content type: the
// signature covers its exact bytes, and a body that is not JSON is the verb's clear 400.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../services.js';
import { acceptTelegram, acceptWhatsApp, verifyWhatsAppSubscription } from './accept-update.js';

type Params = { channelId: string };
const one = (v: unknown) => (typeof v === 'string' ? v : undefined);

export function ingressRoutes(app: FastifyInstance, s: Services) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  const raw = (body: unknown) => (Buffer.isBuffer(body) ? body : Buffer.alloc(0));

  app.get<{ Params: Params; Querystring: Record<string, unknown> }>(
    '/hooks/whatsapp/:channelId',
    { schema: { hide: true } },
    async (req, reply) => {
      const challenge = await verifyWhatsAppSubscription(s, req.params.channelId, {
        mode: one(req.query['hub.mode']),
        token: one(req.query['hub.verify_token']),
        challenge: one(req.query['hub.challenge']),
      });
      return reply.type('text/plain; charset=utf-8').send(challenge);
    },
  );

  app.post<{ Params: Params }>('/hooks/whatsapp/:channelId', { schema: { hide: true } }, async (req) => ({
    data: await acceptWhatsApp(s, req.params.channelId, raw(req.body), one(req.headers['x-hub-signature-256'])),
  }));

  app.post<{ Params: Params }>('/hooks/telegram/:channelId', { schema: { hide: true } }, async (req) => ({
    data: await acceptTelegram(
      s,
      req.params.channelId,
      raw(req.body),
      one(req.headers['x-telegram-bot-api-secret-token']),
    ),
  }));
}
