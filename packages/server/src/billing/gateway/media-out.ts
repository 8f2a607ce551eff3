// DESIGN §9.5: what the assistant says aloud (POST {gateway}/audio/speech) and the pictures it draws
// (POST {gateway}/images/generations). The price of both is known before the provider is called
// (characters of the input, one image), so the hold is exact: held in the same ledger as chat,
// booked once the bytes are back, released on any failure. The catalog's model and voice are used
// whatever the worker asked, as with transcription.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { describeNetworkError } from '@berth/contracts/net';
import { sniffImage, IMAGE_MAX_BYTES } from '@berth/contracts/chat/image';
import { AppError } from '../../platform/errors/app-error.js';
import type { CatalogProvider } from '../../catalog/index.js';
import type { Deployment } from '../../domain/deployment.js';
import type { UsageEntry } from '../../platform/store/usage.js';
import type { UpstreamPools } from '../../chat/index.js';
import { reserve, settle, type MeterDeps } from '../allowance.js';
import type { Services } from '../../services.js';

type Deps = MeterDeps & Pick<Services, 'events'>;

/** OpenAI's limit for one /audio/speech input; the agent speaks longer answers in parts. */
export const SPEECH_MAX_CHARS = 4096;
export const IMAGE_PROMPT_MAX_CHARS = 4000;
/** Sizes every OpenAI-compatible image model we list accepts (or maps to its nearest). */
export const IMAGE_SIZES = ['1024x1024', '1024x1536', '1536x1024'] as const;

export const SpeechBody = Type.Object(
  {
    input: Type.String({ minLength: 1, maxLength: SPEECH_MAX_CHARS, pattern: '\\S' }),
    // What OpenAI's clients send; the catalog decides the model and the voice.
    model: Type.Optional(Type.String({ maxLength: 200 })),
    voice: Type.Optional(Type.String({ maxLength: 200 })),
    response_format: Type.Optional(Type.Literal('opus')),
  },
  { additionalProperties: false },
);

export const ImageBody = Type.Object(
  {
    prompt: Type.String({ minLength: 1, maxLength: IMAGE_PROMPT_MAX_CHARS, pattern: '\\S' }),
    size: Type.Optional(Type.Union(IMAGE_SIZES.map((s) => Type.Literal(s)))),
    model: Type.Optional(Type.String({ maxLength: 200 })),
    n: Type.Optional(Type.Literal(1)),
  },
  { additionalProperties: false },
);

/** Nano-dollars of `chars` characters at a price per million, rounded up. */
export const speechNano = (pricePer1MChars: number, chars: number) => Math.ceil(pricePer1MChars * 1000 * chars);
export const imageNano = (pricePerImage: number) => Math.ceil(pricePerImage * 1_000_000_000);

export interface Caller {
  d: Deployment;
  key: string;
  provider: CatalogProvider;
}

/** Unicode characters, as the providers count them (an emoji is one). */
const charCount = (s: string) => [...s].length;

async function call(
  pools: UpstreamPools,
  req: FastifyRequest,
  target: string,
  key: string,
  body: object,
  accept: string,
) {
  const upstream = pools.get(target);
  try {
    const res = await upstream.pool.request({
      method: 'POST',
      path: upstream.path,
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${key}`, accept, 'content-type': 'application/json' },
    });
    return { status: res.statusCode, type: String(res.headers['content-type'] ?? ''), bytes: await res.body.bytes() };
  } catch (err) {
    req.log.warn({ err: (err as Error).message }, 'model router unreachable');
    throw new AppError(
      'BAD_GATEWAY',
      `The model router could not be reached (${describeNetworkError(err)}, request ${req.id}).`,
    );
  }
}

/** A provider's error answer, relayed as it came (the worker reads OpenAI's error shape). */
function relayError(reply: FastifyReply, status: number, bytes: Uint8Array) {
  const code = status >= 400 && status < 600 ? status : 502;
  return reply
    .status(code)
    .type('application/json')
    .send(bytes.length ? Buffer.from(bytes) : '{}');
}

const isOgg = (b: Uint8Array) => b[0] === 0x4f && b[1] === 0x67 && b[2] === 0x67 && b[3] === 0x53; // "OggS"

type Answered = Awaited<ReturnType<typeof call>>;

/** One request to the gateway's speech or pictures: who asks, and where the answer goes. */
export interface MediaCall {
  s: Deps;
  pools: UpstreamPools;
  c: Caller;
  req: FastifyRequest;
  reply: FastifyReply;
}

/**
 * One call at a price known before it: `cost` held, the provider called at `path`, its error
 * answer relayed as it came; `answer` checks a 2xx answer (throwing for a bad one) and names the
 * usage to book and what to send. Booked once answered, released on anything else.
 */
async function metered(
  { s, pools, c, req, reply }: MediaCall,
  cost: number,
  upstream: { path: string; body: object; accept: string },
  answer: (res: Answered) => { entry: UsageEntry; send: () => unknown },
): Promise<unknown> {
  const reservation = await reserve(s, c.d, cost);
  let entry: UsageEntry | undefined;
  try {
    const { path, body, accept } = upstream;
    const res = await call(pools, req, `${c.provider.baseUrl}${path}`, c.key, body, accept);
    if (res.status < 200 || res.status >= 300) return relayError(reply, res.status, res.bytes);
    const answered = answer(res);
    entry = answered.entry;
    return answered.send();
  } finally {
    await settle(s, reservation, entry);
  }
}

export async function speak(m: MediaCall, body: Static<typeof SpeechBody>): Promise<unknown> {
  const { c, req } = m;
  const sp = c.provider.speech;
  if (!sp)
    throw new AppError('INVALID_REQUEST', `The model router "${c.provider.id}" offers no speech in the catalog.`);
  const chars = charCount(body.input);
  const cost = speechNano(sp.pricePer1MChars, chars);
  const upstream = {
    path: '/audio/speech',
    body: { model: sp.model, voice: sp.voice, input: body.input, response_format: 'opus' },
    accept: 'audio/ogg, application/json',
  };
  return metered(m, cost, upstream, (res) => {
    // Telegram plays a voice note only if it is OGG/Opus; anything else is the provider's fault.
    if (!isOgg(res.bytes))
      throw new AppError(
        'BAD_GATEWAY',
        `The model router answered /audio/speech without OGG/Opus audio (request ${req.id}).`,
      );
    return {
      entry: { source: 'gateway', model: sp.model, promptTokens: chars, completionTokens: 0, costNano: cost },
      send: () => m.reply.status(200).type('audio/ogg').send(Buffer.from(res.bytes)),
    };
  });
}

export async function draw(m: MediaCall, body: Static<typeof ImageBody>): Promise<unknown> {
  const { c, req } = m;
  const im = c.provider.images;
  if (!im)
    throw new AppError(
      'INVALID_REQUEST',
      `The model router "${c.provider.id}" offers no image generation in the catalog.`,
    );
  const cost = imageNano(im.pricePerImage);
  // gpt-image-* always answers base64 and refuses response_format; the others are asked for it,
  // so no picture is ever fetched from a URL the provider names (decision 0033).
  const upstream = {
    path: '/images/generations',
    body: {
      model: im.model,
      prompt: body.prompt,
      n: 1,
      size: body.size ?? '1024x1024',
      ...(im.model.startsWith('gpt-image') ? {} : { response_format: 'b64_json' }),
    },
    accept: 'application/json',
  };
  return metered(m, cost, upstream, (res) => {
    let b64: unknown;
    try {
      b64 = JSON.parse(Buffer.from(res.bytes).toString('utf8'))?.data?.[0]?.b64_json;
    } catch {
      b64 = undefined;
    }
    const png = typeof b64 === 'string' ? Buffer.from(b64, 'base64') : undefined;
    const type = png && png.length <= IMAGE_MAX_BYTES * 4 ? sniffImage(png) : undefined;
    if (!png || !type)
      throw new AppError(
        'BAD_GATEWAY',
        `The model router answered /images/generations without a picture (request ${req.id}).`,
      );
    return {
      entry: { source: 'gateway', model: im.model, promptTokens: 0, completionTokens: 1, costNano: cost },
      send: () => ({ created: Math.floor(Date.now() / 1000), data: [{ b64_json: b64 }], type }),
    };
  });
}
