// The model gateway: every worker calls it instead of its provider, with its deployment's
// credential. It reserves the call's worst case against the allowance (managed, unlimited) or the
// owner's cap (byok, when set), forwards a safe body to the provider with the operator's key or the
// byok owner's (opened from its seal here), streams the answer back as it comes, and books what the
// provider says the reply cost. Neither key leaves this process: one meter (decision 0012).
import { UpstreamPools } from '../../chat/index.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describeNetworkError, multipartBody } from '@berth/contracts/net';
import { bearerToken } from '@berth/contracts/bearer';
import { AppError } from '../../platform/errors/app-error.js';
import { TtlCache } from '../../platform/cache/ttl-cache.js';
import type { Deployment } from '../../domain/deployment.js';
import type { Services } from '../../services.js';
import { reserve, settle } from '../allowance.js';
import { costNano, replyCost, reservePricing } from '../pricing.js';
import type { UsageScanner } from '../usage-scanner.js';
import type { UsageEntry } from '../../platform/store/usage.js';
import { safeBody } from './safe-body.js';
import { audioSeconds, MAX_TRANSCRIPTION_SECONDS, transcriptionNano } from './audio.js';
import { capabilitiesOf } from '../../catalog/index.js';
import { Relay, type RelayOutcome } from './relay.js';
import { draw, speak, type ImageBody, type SpeechBody } from './media-out.js';
import type { Static } from 'typebox';

export type GatewayDeps = Pick<
  Services,
  | 'jobs'
  | 'callbackSequences'
  | 'deployments'
  | 'catalog'
  | 'managedProviderApiKey'
  | 'secrets'
  | 'usage'
  | 'billing'
  | 'now'
  | 'log'
  | 'events'
>;

const unauthorized = () =>
  new AppError(
    'UNAUTHORIZED',
    'Send this deployment\'s model gateway credential as "Authorization: Bearer <credential>".',
  );

export class ModelGateway {
  private readonly pools: UpstreamPools;
  /** A worker calls many times per turn; its deployment is read at most once per second or two. */
  private readonly deployments = new TtlCache<string, Deployment>(2000);
  /** Sealed byok key → the key: a new key is a new seal, so an entry never goes stale. */
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly s: GatewayDeps,
    timeoutMs: number,
  ) {
    this.pools = new UpstreamPools(timeoutMs);
    // A live model change keeps the generation (the worker's credential stays good), so the cached
    // record would pin the old model for up to its TTL: the next call reads the new one instead.
    s.events.on('deployment.model_changed', (e) => this.deployments.delete(e.deploymentId));
  }

  private async deployment(id: string): Promise<Deployment | undefined> {
    const hit = this.deployments.get(id);
    if (hit) return hit;
    const d = await this.s.deployments.findById(id);
    if (d) this.deployments.set(id, d);
    return d;
  }

  /** The calling deployment, running and metered, with its router and the operator's key. */
  private async authorize(req: FastifyRequest) {
    const bearer = bearerToken(req.headers.authorization);
    const claim = this.s.billing.credentials.verify(bearer);
    if (!claim) throw unauthorized();
    let d = await this.deployment(claim.deploymentId);
    // A credential newer than the cached record: the deployment moved on meanwhile; read it again.
    if (d && d.generation < claim.generation) {
      this.deployments.delete(claim.deploymentId);
      d = await this.deployment(claim.deploymentId);
    }
    // A credential of an earlier generation belongs to a worker that was stopped or replaced.
    if (!d || d.generation !== claim.generation) throw unauthorized();
    if (d.status !== 'active' && d.status !== 'deploying') {
      throw new AppError(
        'INVALID_STATE',
        `The deployment is ${d.status}; its model gateway credential works only while it runs.`,
      );
    }
    const provider = this.s.catalog.provider(d.modelProvider);
    if (d.apiMode === 'byok') {
      const key = d.modelApiKeyEnc ? this.ownerKey(d.modelApiKeyEnc) : undefined;
      if (!key || !provider)
        throw new AppError('BAD_GATEWAY', "The assistant's model provider or key is missing; update the assistant.");
      return { d, key, provider };
    }
    const key = this.s.managedProviderApiKey;
    if (!key || !provider)
      throw new AppError('BAD_GATEWAY', 'The operator has not configured the model router (MANAGED_PROVIDER_API_KEY).');
    return { d, key, provider };
  }

  /** A byok owner's key, opened once per sealed value (a worker calls many times per turn). */
  private ownerKey(sealed: string): string {
    let key = this.opened.get(sealed);
    if (key === undefined) {
      key = this.s.secrets.open(sealed);
      if (this.opened.size >= 10_000) this.opened.clear();
      this.opened.set(sealed, key);
    }
    return key;
  }

  /**
   * POST {gateway}/audio/transcriptions (DESIGN §7.3): the audio's length is read from the file, its
   * price (the catalog's per minute) held in the same ledger as chat before the router is called,
   * and booked once the transcript is back; a failed call releases the hold.
   */
  async transcribe(req: FastifyRequest, reply: FastifyReply, raw: Buffer | undefined): Promise<unknown> {
    const { d, key, provider } = await this.authorize(req);
    const t = provider.transcription;
    if (!t)
      throw new AppError(
        'INVALID_REQUEST',
        `The model router "${provider.id}" offers no transcription in the catalog.`,
      );
    let form: FormData;
    try {
      form = await new Response(raw ?? Buffer.alloc(0), {
        headers: { 'content-type': String(req.headers['content-type'] ?? '') },
      }).formData();
    } catch {
      throw new AppError('INVALID_REQUEST', 'Send the audio as multipart/form-data with a "file" field.');
    }
    const file = form.get('file');
    if (!(file instanceof File) || file.size === 0)
      throw new AppError('INVALID_REQUEST', 'Send the audio as multipart/form-data with a "file" field.');
    const bytes = new Uint8Array(await file.arrayBuffer());
    const seconds = await audioSeconds(bytes, file.type || undefined);
    if (seconds === undefined)
      throw new AppError(
        'INVALID_REQUEST',
        'The file is not audio whose length can be read (Ogg/Opus, MP3, M4A, WAV, WebM or FLAC).',
      );
    if (seconds > MAX_TRANSCRIPTION_SECONDS)
      throw new AppError(
        'INVALID_REQUEST',
        `The audio is ${seconds} s long; at most ${MAX_TRANSCRIPTION_SECONDS / 60} minutes are transcribed at once.`,
      );
    const cost = transcriptionNano(t.pricePerMinute, seconds);
    const reservation = await reserve(this.s, d, cost);
    let entry: UsageEntry | undefined;
    try {
      const fields: Parameters<typeof multipartBody>[0] = {
        file: { bytes, type: file.type || 'application/octet-stream', name: file.name || 'audio' },
        model: t.model,
      };
      for (const name of ['language', 'prompt']) {
        const v = form.get(name);
        if (typeof v === 'string' && v.length <= 1000) fields[name] = v;
      }
      const out = await multipartBody(fields);
      const upstream = this.pools.get(`${provider.baseUrl}/audio/transcriptions`);
      let res: Awaited<ReturnType<typeof upstream.pool.request>>;
      try {
        res = await upstream.pool.request({
          method: 'POST',
          path: upstream.path,
          body: out.body,
          headers: { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': out.contentType },
        });
      } catch (err) {
        req.log.warn({ err: (err as Error).message }, 'model router unreachable');
        throw new AppError(
          'BAD_GATEWAY',
          `The model router could not be reached (${describeNetworkError(err)}, request ${req.id}).`,
        );
      }
      const text = await res.body.text();
      let parsed: { text?: unknown } | undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      if (res.statusCode < 200 || res.statusCode >= 300 || typeof parsed?.text !== 'string') {
        const status = res.statusCode >= 400 && res.statusCode < 600 ? res.statusCode : 502;
        return reply
          .status(status)
          .type('application/json')
          .send(text || '{}');
      }
      entry = { source: 'gateway', model: t.model, promptTokens: 0, completionTokens: 0, costNano: cost };
      return { text: parsed.text, duration: seconds };
    } finally {
      await settle(this.s, reservation, entry);
    }
  }

  /** POST {gateway}/audio/speech (DESIGN §9.5): a voice reply, metered per character (media-out.ts). */
  async speech(req: FastifyRequest, reply: FastifyReply, body: Static<typeof SpeechBody>): Promise<unknown> {
    return speak({ s: this.s, pools: this.pools, c: await this.authorize(req), req, reply }, body);
  }

  /** POST {gateway}/images/generations (DESIGN §9.5): one picture, metered per image (media-out.ts). */
  async image(req: FastifyRequest, reply: FastifyReply, body: Static<typeof ImageBody>): Promise<unknown> {
    return draw({ s: this.s, pools: this.pools, c: await this.authorize(req), req, reply }, body);
  }

  async chat(req: FastifyRequest, reply: FastifyReply, raw: Buffer | undefined): Promise<unknown> {
    const { d, key, provider } = await this.authorize(req);
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw?.toString('utf8') ?? '');
    } catch {
      throw new AppError('INVALID_REQUEST', 'The request body is not valid JSON.');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new AppError('INVALID_REQUEST', 'The request body must be a JSON object.');
    // OpenAI's `user`: the worker names the end user it answers ("tg:42"), for the owner's usage by end user.
    const named = (parsed as { user?: unknown }).user;
    const endUser = typeof named === 'string' && named ? { endUser: named.slice(0, 255) } : {};
    const vision = capabilitiesOf(provider, d.modelId).includes('vision');
    const safe = safeBody(parsed as Record<string, unknown>, d.modelId, { vision });
    if ('error' in safe) throw new AppError('INVALID_REQUEST', safe.error);
    const payload = Buffer.from(JSON.stringify(safe.body));
    // Worst case of this call: a generous prompt estimate (2 bytes a token) and the clamped reply.
    const promptEstimate = Math.ceil(payload.length / 2);
    const price = reservePricing(provider, d.modelId);
    const reservation = await reserve(this.s, d, costNano(price, promptEstimate, safe.maxTokens));
    let entry: UsageEntry | undefined;
    try {
      const relayed = await this.forward(
        reply,
        `${provider.baseUrl}/chat/completions`,
        key,
        payload,
        // A byok owner's provider failing (their key, their quota) is not the operator's to be alerted about.
        d.apiMode === 'byok' ? undefined : provider.id,
      );
      if (relayed?.ok) {
        const usage = relayed.scanner.end();
        // Without its usage (the reply broke off): the prompt and what was streamed, at most the hold.
        const completion = Math.ceil(relayed.scanner.bytes / 4);
        entry = usage
          ? { source: 'gateway', model: d.modelId, ...replyCost(provider, d.modelId, usage), ...endUser }
          : {
              source: 'gateway',
              model: d.modelId,
              ...endUser,
              promptTokens: promptEstimate,
              completionTokens: completion,
              costNano: Math.min(reservation.amountNano, costNano(price, promptEstimate, completion)),
            };
      }
    } finally {
      await settle(this.s, reservation, entry);
    }
    return reply;
  }

  private async forward(
    reply: FastifyReply,
    target: string,
    key: string,
    payload: Buffer,
    providerId: string | undefined,
  ): Promise<{ ok: boolean; scanner: UsageScanner } | undefined> {
    const upstream = this.pools.get(target);
    const outcome = await new Promise<RelayOutcome>((done) => {
      upstream.pool.dispatch(
        {
          method: 'POST',
          path: upstream.path,
          body: payload,
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream, application/json',
            authorization: `Bearer ${key}`,
          },
        },
        new Relay(reply.raw, done),
      );
    });
    if (providerId && (outcome.kind === 'unreachable' || (outcome.kind === 'relayed' && !outcome.ok)))
      this.s.events.emit('provider.error', {
        provider: providerId,
        status: outcome.kind === 'relayed' ? reply.raw.statusCode : 0,
      });
    if (outcome.kind === 'unreachable') {
      reply.request.log.warn({ err: outcome.error.message }, 'model router unreachable');
      throw new AppError(
        'BAD_GATEWAY',
        `The model router could not be reached (${describeNetworkError(outcome.error)}, request ${reply.request.id}).`,
      );
    }
    // Written by the relay (or nobody left to write to): Fastify sends nothing more.
    reply.hijack();
    return outcome.kind === 'relayed' ? outcome : undefined;
  }

  async close() {
    await this.pools.close();
  }
}
