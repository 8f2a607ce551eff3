// Meta's Graph API as one WhatsApp number uses it (DESIGN §9.1): POST /{phone-number-id}/messages,
// GET /{media-id} and the media download, each with the number's Bearer token, over undici. A
// refusal is a GraphError with Meta's `error.code`; throughput limits (130429, and 131056 for one
// user) are waited out and tried again a few times, since Meta asks senders to back off and retry.
import { Blob } from 'node:buffer';
import { FormData, request } from 'undici';
import { readCapped } from '../../media/read-capped.js';

/** A Graph API refusal: the HTTP status and Meta's error code (190 token, 131047 window, …). */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'GraphError';
  }
}

/** Meta's throughput limit for the number, and its pair rate limit for one user. */
export const RATE_LIMIT_CODES = new Set([130429, 131056, 80007]);
/** The token is invalid, expired or revoked (190), or no token reached Meta (2500). */
export const TOKEN_CODES = new Set([190, 2500]);
/** A free-form message to a user who has not written within 24 hours. */
export const WINDOW_CODE = 131047;

export interface GraphOptions {
  apiRoot: string;
  phoneNumberId: string;
  accessToken: string;
  signal: AbortSignal;
  /** The first wait after a rate limit; doubled on each retry (tests shorten it). */
  backoffMs?: number;
  /** How many times a rate-limited call is tried again. */
  retries?: number;
}

const TIMEOUTS = { headersTimeout: 30_000, bodyTimeout: 30_000 };

/** The fields of the Graph API's answers Berth reads; anything may be missing from what arrives. */
interface GraphAnswer {
  id?: unknown;
  url?: unknown;
  mime_type?: unknown;
  file_size?: unknown;
  display_phone_number?: unknown;
  messages?: Array<{ id?: unknown }>;
  error?: { message?: unknown; code?: unknown; error_data?: { details?: unknown } };
}

/** Meta's error body as a GraphError. */
function graphError(status: number, json: GraphAnswer | undefined): GraphError {
  const e = json?.error;
  const message = typeof e?.message === 'string' ? e.message : `HTTP ${status}`;
  const details = typeof e?.error_data?.details === 'string' ? e.error_data.details : undefined;
  return new GraphError(
    status,
    typeof e?.code === 'number' ? e.code : undefined,
    (details ? `${message}: ${details}` : message).slice(0, 300),
  );
}

export class Graph {
  private readonly root: string;
  private readonly origin: string;

  constructor(private readonly o: GraphOptions) {
    this.root = o.apiRoot.replace(/\/+$/, '');
    this.origin = new URL(this.root).origin;
  }

  private get auth() {
    return { authorization: `Bearer ${this.o.accessToken}` };
  }

  /** One Graph API call; its JSON answer, or a GraphError with Meta's code. */
  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<GraphAnswer | undefined> {
    const res = await request(`${this.root}/${path}`, {
      method,
      headers: { ...this.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: this.o.signal,
      ...TIMEOUTS,
    });
    const text = await res.body.text();
    let json: GraphAnswer | undefined;
    try {
      json = text ? (JSON.parse(text) as GraphAnswer) : undefined;
    } catch {
      json = undefined;
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return json;
    throw graphError(res.statusCode, json);
  }

  /** POST /{phone-number-id}/messages; a rate limit is waited out (doubling) and tried again. */
  async send(message: Record<string, unknown>): Promise<string | undefined> {
    const body = { messaging_product: 'whatsapp', ...message };
    const retries = this.o.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const id = (await this.call('POST', `${this.o.phoneNumberId}/messages`, body))?.messages?.[0]?.id;
        return typeof id === 'string' ? id : undefined;
      } catch (err) {
        if (!(err instanceof GraphError) || !RATE_LIMIT_CODES.has(err.code ?? 0) || attempt >= retries) throw err;
        await wait((this.o.backoffMs ?? 1000) * 2 ** attempt, this.o.signal);
      }
    }
  }

  /**
   * Uploads a file for this number (POST /{phone-number-id}/media, multipart as Meta takes it);
   * its media id, to send it by.
   */
  async upload(bytes: Uint8Array, mimeType: string, fileName: string): Promise<string> {
    const form = new FormData();
    form.set('messaging_product', 'whatsapp');
    form.set('type', mimeType);
    form.set('file', new Blob([bytes], { type: mimeType }), fileName);
    const res = await request(`${this.root}/${this.o.phoneNumberId}/media`, {
      method: 'POST',
      headers: this.auth,
      body: form,
      signal: this.o.signal,
      ...TIMEOUTS,
    });
    const json = (await res.body.json().catch(() => undefined)) as GraphAnswer | undefined;
    if (res.statusCode !== 200 || typeof json?.id !== 'string') throw graphError(res.statusCode, json);
    return json.id;
  }

  /** The number itself (GET /{phone-number-id}): what the token is proven with at start. */
  async phoneNumber(): Promise<{ displayPhoneNumber: string | undefined }> {
    const n = (await this.call('GET', this.o.phoneNumberId))?.display_phone_number;
    return { displayPhoneNumber: typeof n === 'string' ? n : undefined };
  }

  /**
   * A media id's bytes (GET /{media-id} → url, then the url with the token), at most `maxBytes`.
   * The token goes only to Meta's own hosts (or the configured Graph API's origin, for stand-ins).
   */
  async media(mediaId: string, maxBytes: number): Promise<{ bytes: Buffer; mimeType: string | undefined }> {
    if (!/^[0-9]{1,32}$/.test(mediaId)) throw new Error('the media id is not one Meta gives');
    const meta = await this.call('GET', mediaId);
    if (typeof meta?.file_size === 'number' && meta.file_size > maxBytes) throw new MediaTooLarge();
    const url = new URL(String(meta?.url ?? ''));
    if (!this.mayDownloadFrom(url)) throw new Error(`the media URL is not Meta's (${url.host})`);
    const res = await request(url, { method: 'GET', headers: this.auth, signal: this.o.signal, ...TIMEOUTS });
    if (res.statusCode !== 200) {
      await res.body.dump().catch(() => {});
      throw new Error(`the media download answered HTTP ${res.statusCode}`);
    }
    const bytes = await readCapped(res.body, maxBytes, false);
    return { bytes, mimeType: typeof meta?.mime_type === 'string' ? meta.mime_type : undefined };
  }

  private mayDownloadFrom(url: URL) {
    if (url.origin === this.origin) return true;
    return url.protocol === 'https:' && /(^|\.)(fbsbx\.com|facebook\.com|whatsapp\.net|fbcdn\.net)$/.test(url.hostname);
  }
}

export class MediaTooLarge extends Error {
  constructor() {
    super('the media file is larger than Berth reads');
    this.name = 'MediaTooLarge';
  }
}

function wait(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
