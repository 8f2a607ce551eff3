// A loopback WhatsApp Cloud API (Meta's Graph API) and the Meta side of its webhooks, speaking the
// real shapes:
// - webhooks: Meta's verification handshake (GET ?hub.mode=subscribe&hub.verify_token&hub.challenge,
//   the challenge must come back) before any delivery; each POST a
//   `{object:"whatsapp_business_account", entry[].changes[].value.messages[]}` body with
//   metadata.phone_number_id, contacts[] and real-shaped ids (wamid.…, wa_id digits), signed with
//   the app secret (X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body>); status changes too.
// - POST /{version}/{phone-number-id}/messages (Bearer access token): text, image, audio, document,
//   mark-as-read (status "read" with message_id) with an optional typing indicator; the 24-hour
//   customer service window (a free-form message to a user who has not written within 24 h is
//   refused with 131047); rate limits on demand (130429 throughput, 131056 pair rate).
// - GET /{version}/{media-id} → url, mime_type, sha256, file_size; the url downloads only with the
//   same Bearer token.
// Errors are Graph API bodies: {error:{message,type,code,error_subcode,fbtrace_id}} with a 4xx.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { close, createServer, listen, readBody, readForm, sendJson } from './http.js';

export interface WhatsAppNumber {
  phoneNumberId: string;
  displayPhoneNumber: string;
  accessToken: string;
  appSecret: string;
  /** The WhatsApp Business Account the number belongs to (entry[].id). */
  wabaId: string;
}

export interface WhatsAppUser {
  /** The user's WhatsApp id: their phone number in digits, no plus sign. */
  waId: string;
  name: string;
}

export type Inbound =
  | { text: string }
  | { image: { bytes: Buffer; mimeType: string; caption?: string } }
  | { voice: { bytes: Buffer; mimeType?: string } }
  | { document: { bytes: Buffer; mimeType: string; filename: string; caption?: string } };

/** A message the business sent through POST /{phone-number-id}/messages. */
export interface SentWhatsApp {
  phoneNumberId: string;
  to: string;
  type: string;
  id: string;
  body: any;
  at: number;
}

interface Subscription {
  url: string;
}

interface StoredMedia {
  id: string;
  phoneNumberId: string;
  bytes: Buffer;
  mimeType: string;
}

export const WINDOW_MS = 24 * 60 * 60 * 1000;
const b64 = (n: number) => randomBytes(n).toString('base64');

/** Shaped as Meta's: "wamid." and base64 of a binary id that names the user's number. */
export const wamid = (waId: string) =>
  `wamid.${Buffer.concat([Buffer.from(`\u0015\u0002\u0000\u0011\u0018\u000b${waId}`), randomBytes(18)]).toString('base64')}`;

/** X-Hub-Signature-256 of a raw body, as Meta computes it. */
export const metaSignature = (appSecret: string, raw: string | Buffer) =>
  `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;

export class FakeWhatsApp {
  readonly numbers = new Map<string, WhatsAppNumber>();
  readonly sent: SentWhatsApp[] = [];
  /** Mark-as-read calls: the message id and whether a typing indicator was asked for. */
  readonly reads: Array<{ phoneNumberId: string; messageId: string; typing: boolean }> = [];
  /** Every Graph API request, for tests that check what a client asked. */
  readonly requests: Array<{ method: string; path: string; auth: string | undefined }> = [];
  /** The next POST …/messages of any number answers this rate-limit error. */
  rateLimitNext: 130429 | 131056 | undefined;
  /**
   * Meta's outage: every Graph API call answers 503 with error code 2 ("Service temporarily
   * unavailable", transient) until it is set back. Webhooks (deliver, userSends) still go out.
   */
  unavailable = false;
  /** Files uploaded with POST /{phone-number-id}/media, in order. */
  readonly uploads: Array<{ phoneNumberId: string; id: string; mimeType: string; bytes: Buffer; fileName?: string }> =
    [];
  /** Tells of each message sent ('sent') and each mark-as-read ('read') as it is recorded. */
  readonly events = new EventEmitter();
  private readonly subs = new Map<string, Subscription>();
  private readonly lastInbound = new Map<string, number>();
  private readonly media = new Map<string, StoredMedia>();
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch((err) =>
      this.graphError(res, 500, 'Unexpected error: ' + String(err), 1, 'OAuthException'),
    );
  });
  /** The Graph API root with its version, as WHATSAPP_API_ROOT takes it. */
  url = '';
  private base = '';

  constructor(private readonly o: { version?: string; now?: () => number } = {}) {}

  get version() {
    return this.o.version ?? 'v21.0';
  }
  private now() {
    return this.o.now?.() ?? Date.now();
  }

  async start() {
    this.base = await listen(this.server);
    this.url = `${this.base}/${this.version}`;
    return this;
  }

  async stop() {
    await close(this.server);
  }

  /** A business number with its credentials (what the owner pastes into Berth). */
  addNumber(n: Partial<WhatsAppNumber> = {}): WhatsAppNumber {
    const number: WhatsAppNumber = {
      phoneNumberId: n.phoneNumberId ?? `1${String(Math.floor(Math.random() * 1e14)).padStart(14, '0')}`,
      displayPhoneNumber: n.displayPhoneNumber ?? `1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`,
      accessToken: n.accessToken ?? `EAAG${randomBytes(60).toString('base64url')}`,
      appSecret: n.appSecret ?? randomBytes(16).toString('hex'),
      wabaId: n.wabaId ?? `10${String(Math.floor(Math.random() * 1e13)).padStart(13, '0')}`,
    };
    this.numbers.set(number.phoneNumberId, number);
    return number;
  }

  /**
   * What the owner does in the Meta app's webhook settings: Meta GETs the callback URL with the
   * verify token and a challenge, and keeps the URL only if the challenge comes back.
   */
  async subscribe(phoneNumberId: string, url: string, verifyToken: string): Promise<void> {
    const challenge = String(Math.floor(Math.random() * 1e9));
    const q = new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.challenge': challenge,
      'hub.verify_token': verifyToken,
    });
    const res = await fetch(`${url}?${q}`);
    const text = await res.text();
    if (res.status !== 200 || text !== challenge)
      throw new Error(`The callback URL or verify token couldn't be validated (${res.status}: ${text.slice(0, 200)})`);
    this.subs.set(phoneNumberId, { url });
  }

  /** Whether a webhook URL was verified for this number. */
  subscribed(phoneNumberId: string) {
    return this.subs.get(phoneNumberId)?.url;
  }

  /** The webhook body Meta sends when `from` writes to the number (a message of theirs opens the 24-hour window). */
  messagePayload(phoneNumberId: string, from: WhatsAppUser, inbound: Inbound, opts: { id?: string } = {}) {
    const n = this.number(phoneNumberId);
    const id = opts.id ?? wamid(from.waId);
    const message: Record<string, unknown> = { from: from.waId, id, timestamp: String(Math.floor(this.now() / 1000)) };
    if ('text' in inbound) Object.assign(message, { type: 'text', text: { body: inbound.text } });
    else if ('image' in inbound)
      Object.assign(message, {
        type: 'image',
        image: { ...this.mediaRef(n, inbound.image.bytes, inbound.image.mimeType), caption: inbound.image.caption },
      });
    else if ('voice' in inbound)
      Object.assign(message, {
        type: 'audio',
        audio: {
          ...this.mediaRef(n, inbound.voice.bytes, inbound.voice.mimeType ?? 'audio/ogg; codecs=opus'),
          voice: true,
        },
      });
    else
      Object.assign(message, {
        type: 'document',
        document: {
          ...this.mediaRef(n, inbound.document.bytes, inbound.document.mimeType),
          filename: inbound.document.filename,
          caption: inbound.document.caption,
        },
      });
    return {
      id,
      payload: this.envelope(n, {
        contacts: [{ profile: { name: from.name }, wa_id: from.waId }],
        messages: [message],
      }),
    };
  }

  /** A status change of a sent message (sent, delivered, read, failed), as Meta reports it. */
  statusPayload(phoneNumberId: string, messageId: string, recipient: string, status: 'sent' | 'delivered' | 'read') {
    const n = this.number(phoneNumberId);
    return this.envelope(n, {
      statuses: [{ id: messageId, status, timestamp: String(Math.floor(this.now() / 1000)), recipient_id: recipient }],
    });
  }

  /** `from` writes to the number: the signed webhook POSTed to its verified URL. */
  async userSends(phoneNumberId: string, from: WhatsAppUser, inbound: Inbound) {
    const { id, payload } = this.messagePayload(phoneNumberId, from, inbound);
    this.lastInbound.set(`${phoneNumberId}:${from.waId}`, this.now());
    const res = await this.deliver(phoneNumberId, payload);
    return { id, ...res };
  }

  /**
   * POSTs a webhook body to the number's verified URL, signed with its app secret (or with
   * `signature` as given, for tests of a forged one; null sends none). Meta retries what is not
   * answered 200; a test does so by calling this again.
   */
  async deliver(phoneNumberId: string, payload: unknown, o: { signature?: string | null; raw?: string } = {}) {
    const url = this.subscribed(phoneNumberId);
    if (!url) throw new Error(`No webhook URL was verified for ${phoneNumberId}: call subscribe() first`);
    const raw = o.raw ?? JSON.stringify(payload);
    const signature =
      o.signature === undefined ? metaSignature(this.number(phoneNumberId).appSecret, raw) : o.signature;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(signature === null ? {} : { 'x-hub-signature-256': signature }),
      },
      body: raw,
    });
    return { status: res.status, body: await res.text() };
  }

  /**
   * The first sent message matching `predicate`, now or when it is sent (an event, not a poll);
   * rejects after `timeoutMs` with what was sent.
   */
  waitForSent(predicate: (m: SentWhatsApp) => boolean, timeoutMs = 15_000): Promise<SentWhatsApp> {
    const found = this.sent.find(predicate);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const onSent = (m: SentWhatsApp) => {
        if (!predicate(m)) return;
        clearTimeout(timer);
        this.events.off('sent', onSent);
        resolve(m);
      };
      const timer = setTimeout(() => {
        this.events.off('sent', onSent);
        const seen = this.sent.map((m) => `${m.to}: ${String(m.body?.text?.body ?? m.type).slice(0, 60)}`);
        reject(new Error(`no matching WhatsApp message within ${timeoutMs} ms; sent: ${JSON.stringify(seen)}`));
      }, timeoutMs);
      this.events.on('sent', onSent);
    });
  }

  /** What the owner does in Meta's console: the number's token stops working (a new one is made). */
  revokeToken(phoneNumberId: string): string {
    const n = this.number(phoneNumberId);
    n.accessToken = `EAAG${randomBytes(60).toString('base64url')}`;
    return n.accessToken;
  }

  /** Moves a user's last message back in time (the 24-hour window without waiting a day). */
  lastWroteAt(phoneNumberId: string, waId: string, at: number) {
    this.lastInbound.set(`${phoneNumberId}:${waId}`, at);
  }

  private number(phoneNumberId: string) {
    const n = this.numbers.get(phoneNumberId);
    if (!n) throw new Error(`FakeWhatsApp has no number ${phoneNumberId}`);
    return n;
  }

  private envelope(n: WhatsAppNumber, value: Record<string, unknown>) {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: n.wabaId,
          changes: [
            {
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: n.displayPhoneNumber, phone_number_id: n.phoneNumberId },
                ...value,
              },
              field: 'messages',
            },
          ],
        },
      ],
    };
  }

  private mediaRef(n: WhatsAppNumber, bytes: Buffer, mimeType: string) {
    const id = String(1e15 + Math.floor(Math.random() * 1e15));
    this.media.set(id, { id, phoneNumberId: n.phoneNumberId, bytes, mimeType });
    return { id, mime_type: mimeType, sha256: createHash('sha256').update(bytes).digest('base64') };
  }

  private graphError(
    res: ServerResponse,
    status: number,
    message: string,
    code: number,
    type: string,
    subcode?: number,
    details?: string,
  ) {
    sendJson(res, status, {
      error: {
        message,
        type,
        code,
        ...(subcode !== undefined ? { error_subcode: subcode } : {}),
        ...(details ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
        fbtrace_id: b64(12).replace(/[+/=]/g, 'A').slice(0, 23),
      },
    });
  }

  /** Graph's refusal of a malformed parameter: "(#100)", what was wrong in error_data.details. */
  private invalidParameter(res: ServerResponse, details: string) {
    return this.graphError(res, 400, '(#100) Invalid parameter', 100, 'OAuthException', undefined, details);
  }

  /** Graph's refusal of a request without a parameter it requires. */
  private missingParameter(res: ServerResponse, name: string) {
    return this.graphError(res, 400, `(#100) The parameter ${name} is required.`, 100, 'OAuthException');
  }

  /**
   * The body of a POST to number `phoneNumberId` as `parse` reads it; undefined once the answer is
   * sent: a 401 for a token that is not the number's, or Graph's invalid-parameter error saying
   * `unreadable` for a body `parse` throws on.
   */
  private async numbersBody<T>(
    req: IncomingMessage,
    res: ServerResponse,
    phoneNumberId: string,
    parse: (raw: Buffer) => T | Promise<T>,
    unreadable: string,
  ): Promise<T | undefined> {
    if (!this.authorized(req, res, this.numbers.get(phoneNumberId))) return undefined;
    const raw = await readBody(req);
    try {
      return await parse(raw);
    } catch {
      this.invalidParameter(res, unreadable);
      return undefined;
    }
  }

  /** The number whose token this is, or undefined (then a 401 was sent). */
  private authorized(req: IncomingMessage, res: ServerResponse, n: WhatsAppNumber | undefined) {
    const auth = req.headers.authorization;
    if (!auth?.startsWith('Bearer ')) {
      this.graphError(
        res,
        401,
        'An active access token must be used to query information about the current user.',
        2500,
        'OAuthException',
      );
      return false;
    }
    if (!n || auth.slice(7) !== n.accessToken) {
      this.graphError(
        res,
        401,
        'Error validating access token: The session is invalid because the user logged out.',
        190,
        'OAuthException',
        467,
      );
      return false;
    }
    return true;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://graph.invalid');
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, auth: req.headers.authorization });
    if (this.unavailable)
      return sendJson(res, 503, {
        error: {
          message: '(#2) Service temporarily unavailable',
          type: 'OAuthException',
          is_transient: true,
          code: 2,
          fbtrace_id: b64(12).replace(/[+/=]/g, 'A').slice(0, 23),
        },
      });
    const download = /^\/media\/download\/([0-9]+)$/.exec(url.pathname);
    if (download && req.method === 'GET') {
      const m = this.media.get(download[1]!);
      if (!m) return this.graphError(res, 404, 'Media not found', 100, 'GraphMethodException', 33);
      if (!this.authorized(req, res, this.numbers.get(m.phoneNumberId))) return;
      res.writeHead(200, { 'content-type': m.mimeType, 'content-length': m.bytes.length });
      return res.end(m.bytes);
    }
    const prefix = `/${this.version}/`;
    if (!url.pathname.startsWith(prefix))
      return this.graphError(res, 400, 'Unknown path components: ' + url.pathname, 2500, 'OAuthException');
    const rest = url.pathname.slice(prefix.length);
    const messages = /^([0-9]+)\/messages$/.exec(rest);
    if (messages && req.method === 'POST') return this.postMessage(req, res, messages[1]!);
    const upload = /^([0-9]+)\/media$/.exec(rest);
    if (upload && req.method === 'POST') return this.uploadMedia(req, res, upload[1]!);
    const mediaId = /^([0-9]+)$/.exec(rest);
    // A phone number id read with its own token: what Berth checks credentials with.
    const phone = mediaId && this.numbers.get(mediaId[1]!);
    if (phone && req.method === 'GET') {
      if (!this.authorized(req, res, phone)) return;
      return sendJson(res, 200, {
        verified_name: 'Test Business',
        display_phone_number: phone.displayPhoneNumber,
        quality_rating: 'GREEN',
        id: phone.phoneNumberId,
      });
    }
    if (mediaId && req.method === 'GET') {
      const m = this.media.get(mediaId[1]!);
      if (!m)
        return this.graphError(
          res,
          400,
          `Unsupported get request. Object with ID '${mediaId[1]}' does not exist`,
          100,
          'GraphMethodException',
          33,
        );
      if (!this.authorized(req, res, this.numbers.get(m.phoneNumberId))) return;
      return sendJson(res, 200, {
        messaging_product: 'whatsapp',
        url: `${this.base}/media/download/${m.id}`,
        mime_type: m.mimeType,
        sha256: createHash('sha256').update(m.bytes).digest('hex'),
        file_size: m.bytes.length,
        id: m.id,
      });
    }
    return this.graphError(res, 400, `Unsupported ${req.method} request.`, 100, 'GraphMethodException');
  }

  /**
   * POST /{phone-number-id}/media: a multipart upload (messaging_product, type, file) → { id }, the
   * id a message then sends the file by; refused without a file or with another number's token.
   */
  private async uploadMedia(req: IncomingMessage, res: ServerResponse, phoneNumberId: string) {
    const form = await this.numbersBody(
      req,
      res,
      phoneNumberId,
      (raw) => readForm(req, raw),
      'Expected multipart/form-data.',
    );
    if (!form) return;
    const file = form.get('file');
    if (form.get('messaging_product') !== 'whatsapp') return this.missingParameter(res, 'messaging_product');
    if (!(file instanceof Blob) || file.size === 0) return this.missingParameter(res, 'file');
    const bytes = Buffer.from(await file.arrayBuffer());
    const mimeType = String(form.get('type') ?? file.type);
    const id = String(1e15 + Math.floor(Math.random() * 1e15));
    this.media.set(id, { id, phoneNumberId, bytes, mimeType });
    this.uploads.push({ phoneNumberId, id, mimeType, bytes, fileName: file instanceof File ? file.name : undefined });
    return sendJson(res, 200, { id });
  }

  /** The bytes of an uploaded or received media id (what a user's phone would show). */
  mediaBytes(id: string): Buffer | undefined {
    return this.media.get(id)?.bytes;
  }

  private async postMessage(req: IncomingMessage, res: ServerResponse, phoneNumberId: string) {
    const body = await this.numbersBody(
      req,
      res,
      phoneNumberId,
      (raw): any => JSON.parse(raw.toString('utf8')),
      'The request body is not JSON.',
    );
    if (body === undefined) return;
    if (body?.messaging_product !== 'whatsapp') return this.missingParameter(res, 'messaging_product');
    if (body.status === 'read') {
      if (typeof body.message_id !== 'string') return this.missingParameter(res, 'message_id');
      const read = { phoneNumberId, messageId: body.message_id, typing: body.typing_indicator?.type === 'text' };
      this.reads.push(read);
      this.events.emit('read', read);
      return sendJson(res, 200, { success: true });
    }
    if (this.rateLimitNext) {
      const code = this.rateLimitNext;
      this.rateLimitNext = undefined;
      return code === 130429
        ? this.graphError(
            res,
            400,
            '(#130429) Rate limit hit',
            130429,
            'OAuthException',
            undefined,
            'Cloud API message throughput has been reached.',
          )
        : this.graphError(
            res,
            400,
            '(#131056) (Business Account, Consumer Account) pair rate limit hit',
            131056,
            'OAuthException',
            undefined,
            'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time.',
          );
    }
    if (typeof body.to !== 'string' || !/^\+?[0-9]{6,20}$/.test(body.to))
      return this.invalidParameter(res, 'Parameter to must be a phone number.');
    const to = body.to.replace(/^\+/, '');
    const type = body.type ?? 'text';
    const invalid = this.checkContent(type, body, phoneNumberId);
    if (invalid) return this.invalidParameter(res, invalid);
    // A template may open a conversation; anything free-form needs the user's message within 24 h.
    const last = this.lastInbound.get(`${phoneNumberId}:${to}`);
    if (type !== 'template' && (last === undefined || this.now() - last > WINDOW_MS))
      return this.graphError(
        res,
        400,
        '(#131047) Re-engagement message',
        131047,
        'OAuthException',
        2494010,
        'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
      );
    const id = wamid(to);
    const sent = { phoneNumberId, to, type, id, body, at: this.now() };
    this.sent.push(sent);
    this.events.emit('sent', sent);
    return sendJson(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [{ input: body.to, wa_id: to }],
      messages: [{ id }],
    });
  }

  private checkContent(type: string, body: any, phoneNumberId: string): string | undefined {
    if (type === 'text') {
      const text = body.text?.body;
      if (typeof text !== 'string' || !text) return 'Parameter text.body is required.';
      if (text.length > 4096) return "Param text['body'] must be at most 4096 characters long.";
      return undefined;
    }
    if (['image', 'audio', 'document', 'video', 'sticker'].includes(type)) {
      const m = body[type];
      if (!m || (typeof m.id !== 'string' && typeof m.link !== 'string'))
        return `Parameter ${type} needs an id or a link.`;
      // A media id must be one this number uploaded (or received): Meta refuses others.
      if (typeof m.id === 'string' && this.media.get(m.id)?.phoneNumberId !== phoneNumberId)
        return `Parameter ${type}.id is not a media id of this phone number.`;
      return undefined;
    }
    if (type === 'template')
      return typeof body.template?.name === 'string' ? undefined : 'Parameter template.name is required.';
    return `Unsupported message type ${type}.`;
  }
}
