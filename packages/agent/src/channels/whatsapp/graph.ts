// Meta's Graph API as one WhatsApp number uses it (DESIGN §9.1): POST /{phone-number-id}/messages,
// GET /{media-id} and the media download, each with the number's Bearer token, over undici. A
// refusal is a GraphError with Meta's `error.code`; throughput limits (130429, and 131056 for one
// user) are waited out and tried again a few times, since Meta asks senders to back off and retry.
import { request } from 'undici';
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
  async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
    const res = await request(`${this.root}/${path}`, {
      method,
      headers: { ...this.auth, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: this.o.signal,
      ...TIMEOUTS,
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.statusCode >= 200 && res.statusCode < 300) return json;
    const e = json?.error;
    const details = e?.error_data?.details;
    const message = typeof e?.message === 'string' ? e.message : `HTTP ${res.statusCode}`;
    throw new GraphError(
      res.statusCode,
      typeof e?.code === 'number' ? e.code : undefined,
      (details ? `${message}: ${details}` : message).slice(0, 300),
    );
  }

  /** POST /{phone-number-id}/messages; a rate limit is waited out (doubling) and tried again. */
  async send(message: Record<string, unknown>): Promise<string | undefined> {
    const body = { messaging_product: 'whatsapp', ...message };
    const retries = this.o.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await this.call('POST', `${this.o.phoneNumberId}/messages`, body);
        return answer?.messages?.[0]?.id;
      } catch (err) {
        if (!(err instanceof GraphError) || !RATE_LIMIT_CODES.has(err.code ?? 0) || attempt >= retries) throw err;
        await wait((this.o.backoffMs ?? 1000) * 2 ** attempt, this.o.signal);
      }
    }
  }

  /** The number itself (GET /{phone-number-id}): what the token is proven with at start. */
  phoneNumber(): Promise<{ display_phone_number?: string }> {
    return this.call('GET', this.o.phoneNumberId);
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
