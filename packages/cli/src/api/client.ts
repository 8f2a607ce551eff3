// The one module that talks HTTP to the control plane for the user CLI: the spec's endpoints over
// undici, typed by the server's own schemas. (When the generated @berth/client lands, the JSON
// calls move to it; the streaming chat stays here.)
import { randomUUID } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type {
  ActivateInput,
  ChatCompletionBody,
  DeleteResultBody,
  DeploymentRecord,
  PurchaseInput,
  PurchaseResultBody,
  RedeployInput,
  StatusView,
  UpdateInput,
  ApiKeyView,
  CreatedApiKey,
} from '@berth/server';
import { ApiError, ConnectionError } from './errors.js';
import { readChatStream, type ChatStreamHandlers } from './chat-stream.js';

export type { DeploymentRecord, StatusView, ChatCompletionBody, ApiKeyView, CreatedApiKey };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

const BASE = '/api/v1/assistants';
// Matches the server's upstream wait for chat (180 s) with room to spare; JSON calls are quick.
const CHAT_TIMEOUT_MS = 200_000;
const CALL_TIMEOUT_MS = 60_000;

export class BerthClient {
  constructor(
    readonly url: string,
    private readonly apiKey: string,
  ) {}

  list() {
    return this.json<DeploymentRecord[]>('GET', BASE);
  }
  get(id: string) {
    return this.json<DeploymentRecord>('GET', `${BASE}/${seg(id)}`);
  }
  status(id: string) {
    return this.json<StatusView>('GET', `${BASE}/${seg(id)}/status`);
  }
  purchase(body: PurchaseInput) {
    return this.json<PurchaseResultBody>('POST', `${BASE}/purchase`, body);
  }
  activate(id: string, body: ActivateInput) {
    return this.json<DeploymentRecord>('POST', `${BASE}/${seg(id)}/activate`, body);
  }
  update(id: string, body: UpdateInput) {
    return this.json<DeploymentRecord>('PATCH', `${BASE}/${seg(id)}`, body);
  }
  redeploy(id: string, body: RedeployInput) {
    return this.json<DeploymentRecord>('POST', `${BASE}/${seg(id)}/redeploy`, body);
  }
  stop(id: string) {
    return this.json<DeploymentRecord>('POST', `${BASE}/${seg(id)}/stop`);
  }
  remove(id: string) {
    return this.json<DeleteResultBody>('DELETE', `${BASE}/${seg(id)}`);
  }

  listKeys() {
    return this.json<ApiKeyView[]>('GET', '/api/keys');
  }
  createKey(body: { name: string; organizationId?: string }) {
    return this.json<CreatedApiKey>('POST', '/api/keys', body);
  }
  async revokeKey(id: string): Promise<void> {
    const res = await this.send('DELETE', `/api/keys/${seg(id)}`, undefined, {}, CALL_TIMEOUT_MS);
    if (res.statusCode === 204) return void (await res.body.dump());
    await readJson(res);
  }

  /** One chat turn without streaming; the whole completion object. */
  async chat(id: string, messages: ChatMessage[], sessionId?: string): Promise<ChatCompletionBody> {
    const res = await this.send(
      'POST',
      `${BASE}/${seg(id)}/chat/completions`,
      chatBody(messages, false),
      sessionHeader(sessionId),
      CHAT_TIMEOUT_MS,
    );
    return (await readJson(res)) as ChatCompletionBody;
  }

  /** One chat turn streamed: handlers see text and tool progress as they arrive; resolves with the whole text. */
  async chatStream(
    id: string,
    messages: ChatMessage[],
    handlers: ChatStreamHandlers,
    sessionId?: string,
  ): Promise<string> {
    const res = await this.send(
      'POST',
      `${BASE}/${seg(id)}/chat/completions`,
      chatBody(messages, true),
      sessionHeader(sessionId),
      CHAT_TIMEOUT_MS,
    );
    if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').includes('text/event-stream')) {
      await readJson(res);
      throw new ApiError(res.statusCode, 'BAD_GATEWAY', 'the server did not answer with an event stream');
    }
    return readChatStream(res.body, handlers);
  }

  private async json<T>(method: Dispatcher.HttpMethod, path: string, body?: unknown): Promise<T> {
    const res = await this.send(method, path, body, {}, CALL_TIMEOUT_MS);
    return ((await readJson(res)) as { data: T }).data;
  }

  private async send(
    method: Dispatcher.HttpMethod,
    path: string,
    body: unknown,
    headers: Record<string, string>,
    timeoutMs: number,
  ) {
    try {
      return await request(`${this.url}${path}`, {
        method,
        headers: {
          'x-api-key': this.apiKey,
          accept: 'application/json, text/event-stream',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
    } catch (err) {
      throw new ConnectionError(this.url, connectionReason(err));
    }
  }
}

function seg(id: string): string {
  return encodeURIComponent(id);
}

function chatBody(messages: ChatMessage[], stream: boolean) {
  return { model: 'assistant-agent', messages, stream };
}

function sessionHeader(sessionId: string | undefined): Record<string, string> {
  return sessionId ? { 'x-assistant-session-id': sessionId } : {};
}

export function newSessionId(): string {
  return `cli-${randomUUID()}`;
}

/** The body as JSON on 2xx; otherwise an ApiError carrying the envelope's code and message. */
async function readJson(res: Dispatcher.ResponseData): Promise<unknown> {
  const text = await res.body.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (res.statusCode >= 200 && res.statusCode < 300 && parsed !== undefined) return parsed;
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  if (error && typeof error.code === 'string') {
    throw new ApiError(res.statusCode, error.code, typeof error.message === 'string' ? error.message : error.code);
  }
  throw new ApiError(
    res.statusCode,
    'UNEXPECTED_RESPONSE',
    `HTTP ${res.statusCode}: ${text.slice(0, 200) || 'empty body'}`,
  );
}

function connectionReason(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string }; message?: string };
  return e.code ?? e.cause?.code ?? e.message ?? String(err);
}
