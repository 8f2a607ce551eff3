// The one module that talks HTTP to the control plane for the user CLI: every call goes through the
// typed client generated from the server's OpenAPI document (@berth/client), so a route or field
// the document does not have does not compile here. Refusals become the client's BerthApiError and
// streamed chat is read with the client's reader, as the dashboard does.
import { randomUUID } from 'node:crypto';
import {
  BerthApiError,
  createBerthClient,
  readChatStream,
  toBerthError,
  type BerthClient as TypedClient,
  type components,
  type paths,
} from '@berth/client';
import type { ToolProgress } from '@berth/contracts';
import { ConnectionError } from './errors.js';

/** The JSON body an operation takes, and the `data` of its 2xx answer, as the document says. */
type BodyOf<P extends keyof paths, M extends 'post' | 'patch' | 'put'> =
  NonNullable<paths[P][M]> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type DataOf<P extends keyof paths, M extends 'get' | 'post'> =
  NonNullable<paths[P][M]> extends { responses: { 200: { content: { 'application/json': infer R } } } }
    ? R extends { data: infer D }
      ? D
      : R
    : never;

export type DeploymentRecord = components['schemas']['DeploymentRecord'];
export type StatusView = DataOf<'/api/v1/assistants/{deploymentId}/status', 'get'>;
export type ChatCompletionBody = DataOf<'/api/v1/assistants/{deploymentId}/chat/completions', 'post'>;
type PurchaseInput = BodyOf<'/api/v1/assistants/purchase', 'post'>;
export type ActivateInput = BodyOf<'/api/v1/assistants/{deploymentId}/activate', 'post'>;
export type UpdateInput = BodyOf<'/api/v1/assistants/{deploymentId}', 'patch'>;
export type ModelInput = BodyOf<'/api/v1/assistants/{deploymentId}/model', 'put'>;
type RedeployInput = BodyOf<'/api/v1/assistants/{deploymentId}/redeploy', 'post'>;
export type SettingsInput = components['schemas']['AssistantSettings'];
export type SettingsVersion = components['schemas']['AssistantSettingsVersion'];
export type Pairing = DataOf<'/api/v1/assistants/{deploymentId}/pairings', 'get'>[number];
export type Reminder = DataOf<'/api/v1/assistants/{deploymentId}/reminders', 'get'>[number];
export type McpServer = components['schemas']['McpServer'];
type ChannelCredentials = BodyOf<'/api/v1/assistants/{deploymentId}/channels/{type}', 'put'>;
export type McpServerInput = BodyOf<'/api/v1/assistants/{deploymentId}/mcp-servers/{name}', 'put'>;
export type AssistantChannel = DataOf<'/api/v1/assistants/{deploymentId}/channels', 'get'>[number];
export type CatalogModel = DataOf<'/api/v1/catalog/models', 'get'>[number];

export type ChatMessage = {
  role: 'system' | 'user' | 'assistant';
  content: string;
};

export type { ToolProgress };

export interface ChatStreamHandlers {
  onText(text: string): void;
  onToolProgress(progress: ToolProgress): void;
}

// Matches the server's upstream wait for chat (180 s) with room to spare; JSON calls are quick.
const CHAT_TIMEOUT_MS = 200_000;
const CALL_TIMEOUT_MS = 60_000;

/** What openapi-fetch answers: the parsed success or error body, and the response. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export class BerthClient {
  private readonly http: TypedClient;

  constructor(
    readonly url: string,
    apiKey: string,
    fetch?: typeof globalThis.fetch,
  ) {
    this.http = createBerthClient({
      baseUrl: url,
      apiKey,
      fetch,
      headers: { accept: 'application/json, text/event-stream' },
    });
  }

  list() {
    return this.data(this.http.GET('/api/v1/assistants', { signal: timeout() }));
  }
  get(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}', byId(id)));
  }
  status(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/status', byId(id)));
  }
  purchase(body: PurchaseInput) {
    return this.data(this.http.POST('/api/v1/assistants/purchase', { body, signal: timeout() }));
  }
  activate(id: string, body: ActivateInput) {
    return this.data(this.http.POST('/api/v1/assistants/{deploymentId}/activate', { ...byId(id), body }));
  }
  update(id: string, body: UpdateInput) {
    return this.data(this.http.PATCH('/api/v1/assistants/{deploymentId}', { ...byId(id), body }));
  }
  /** PUT …/model: applied live on an active assistant, else PATCH's rule. */
  changeModel(id: string, body: ModelInput) {
    return this.data(this.http.PUT('/api/v1/assistants/{deploymentId}/model', { ...byId(id), body }));
  }
  redeploy(id: string, body: RedeployInput) {
    return this.data(this.http.POST('/api/v1/assistants/{deploymentId}/redeploy', { ...byId(id), body }));
  }
  stop(id: string) {
    return this.data(this.http.POST('/api/v1/assistants/{deploymentId}/stop', byId(id)));
  }
  remove(id: string) {
    return this.data(this.http.DELETE('/api/v1/assistants/{deploymentId}', byId(id)));
  }

  account() {
    return this.data(this.http.GET('/api/auth/whoami', { signal: timeout() }));
  }
  limits(id: string, monthlySpendCapUsd: number | null) {
    return this.data(
      this.http.PUT('/api/v1/assistants/{deploymentId}/limits', { ...byId(id), body: { monthlySpendCapUsd } }),
    );
  }
  checkout(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/checkout', byId(id)));
  }
  settings(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/settings', byId(id)));
  }
  putSettings(id: string, body: SettingsInput) {
    return this.data(this.http.PUT('/api/v1/assistants/{deploymentId}/settings', { ...byId(id), body }));
  }
  settingsVersions(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/settings/versions', byId(id)));
  }
  rollbackSettings(id: string, version: number) {
    return this.data(
      this.http.POST('/api/v1/assistants/{deploymentId}/settings/rollback', { ...byId(id), body: { version } }),
    );
  }
  pairings(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/pairings', byId(id)));
  }
  approvePairing(id: string, code: string) {
    return this.data(
      this.http.POST('/api/v1/assistants/{deploymentId}/pairings/{code}/approve', at({ deploymentId: id, code })),
    );
  }
  reminders(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/reminders', byId(id)));
  }
  /** Cancels one pending reminder, or without `reminderId` every one of the assistant. */
  clearReminders(id: string, reminderId?: string) {
    return this.data(
      reminderId === undefined
        ? this.http.DELETE('/api/v1/assistants/{deploymentId}/reminders', byId(id))
        : this.http.DELETE(
            '/api/v1/assistants/{deploymentId}/reminders/{reminderId}',
            at({ deploymentId: id, reminderId }),
          ),
    );
  }
  mcpServers(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/mcp-servers', byId(id)));
  }
  putMcpServer(id: string, name: string, body: McpServerInput) {
    return this.data(
      this.http.PUT('/api/v1/assistants/{deploymentId}/mcp-servers/{name}', {
        ...at({ deploymentId: id, name }),
        body,
      }),
    );
  }
  removeMcpServer(id: string, name: string) {
    return this.data(
      this.http.DELETE('/api/v1/assistants/{deploymentId}/mcp-servers/{name}', at({ deploymentId: id, name })),
    );
  }
  channels(id: string) {
    return this.data(this.http.GET('/api/v1/assistants/{deploymentId}/channels', byId(id)));
  }
  setWhatsApp(id: string, body: { phoneNumberId: string; accessToken: string; appSecret: string }) {
    return this.putChannel(id, 'whatsapp', body);
  }
  setDiscord(id: string, body: { botToken: string; applicationId: string }) {
    return this.putChannel(id, 'discord', body);
  }
  removeChannel(id: string, type: 'whatsapp' | 'discord') {
    return this.data(
      this.http.DELETE('/api/v1/assistants/{deploymentId}/channels/{type}', at({ deploymentId: id, type })),
    );
  }
  catalog() {
    return this.data(this.http.GET('/api/v1/catalog/models', { signal: timeout() }));
  }

  listKeys() {
    return this.data(this.http.GET('/api/keys', { signal: timeout() }));
  }
  createKey(body: BodyOf<'/api/keys', 'post'>) {
    return this.data(this.http.POST('/api/keys', { body, signal: timeout() }));
  }
  /** 204 on success: nothing to return. */
  async revokeKey(id: string): Promise<void> {
    await this.call(this.http.DELETE('/api/keys/{id}', at({ id })));
  }

  /** One chat turn without streaming; the whole completion object. */
  async chat(id: string, messages: ChatMessage[], sessionId?: string): Promise<ChatCompletionBody> {
    const answer = await this.call(this.chatCall(id, messages, false, sessionId, 'json'));
    return answer.data as ChatCompletionBody;
  }

  /** One chat turn streamed: handlers see text and tool progress as they arrive; resolves with the whole text. */
  async chatStream(
    id: string,
    messages: ChatMessage[],
    handlers: ChatStreamHandlers,
    sessionId?: string,
  ): Promise<string> {
    const { data, response } = await this.call(this.chatCall(id, messages, true, sessionId, 'stream'));
    if (!String(response.headers.get('content-type')).includes('text/event-stream') || !data) {
      throw new BerthApiError(response.status, 'BAD_GATEWAY', 'the server did not answer with an event stream');
    }
    let whole = '';
    for await (const event of readChatStream(data as ReadableStream<Uint8Array>)) {
      if (event.type === 'done') return whole;
      if (event.type === 'error') throw event.error;
      if (event.type === 'progress') handlers.onToolProgress(event);
      if (event.type === 'delta') {
        whole += event.text;
        handlers.onText(event.text);
      }
    }
    throw new BerthApiError(502, 'BAD_GATEWAY', 'the answer stream ended before it was complete; try again');
  }

  private chatCall(
    id: string,
    messages: ChatMessage[],
    stream: boolean,
    sessionId: string | undefined,
    parseAs: 'json' | 'stream',
  ): Promise<Answer<unknown>> {
    return this.http.POST('/api/v1/assistants/{deploymentId}/chat/completions', {
      params: { ...path(id), header: sessionId ? { 'X-Assistant-Session-Id': sessionId } : {} },
      body: { model: 'assistant-agent', messages, stream },
      parseAs,
      signal: timeout(CHAT_TIMEOUT_MS),
    });
  }

  /** Attaches the channel, or replaces its credentials. */
  private putChannel(id: string, type: 'whatsapp' | 'discord', body: ChannelCredentials) {
    return this.data(
      this.http.PUT('/api/v1/assistants/{deploymentId}/channels/{type}', { ...at({ deploymentId: id, type }), body }),
    );
  }

  /** The `data` of the envelope of a 2xx answer. */
  private async data<T>(pending: Promise<Answer<{ data: T }>>): Promise<T> {
    return (await this.call(pending)).data!.data;
  }

  /** A 2xx answer as it is; anything else as a BerthApiError or ConnectionError the commands turn into advice. */
  private async call<T>(pending: Promise<Answer<T>>): Promise<Answer<T>> {
    let answer: Answer<T>;
    try {
      answer = await pending;
    } catch (err) {
      throw new ConnectionError(this.url, connectionReason(err));
    }
    if (answer.response.ok && answer.error === undefined) return answer;
    throw toBerthError(answer.error, answer.response);
  }
}

function path(deploymentId: string) {
  return { path: { deploymentId } };
}

/** A JSON call's options: its path's parameters, and its own time limit from now. */
function at<P>(pathParams: P) {
  return { params: { path: pathParams }, signal: timeout() };
}

/** The options of a call on one assistant. */
function byId(deploymentId: string) {
  return at({ deploymentId });
}

function timeout(ms = CALL_TIMEOUT_MS): AbortSignal {
  return AbortSignal.timeout(ms);
}

export function newSessionId(): string {
  return `cli-${randomUUID()}`;
}

/** Why fetch failed, as the socket said it (ECONNREFUSED, ENOTFOUND…) rather than "fetch failed". */
function connectionReason(err: unknown): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string; message?: string }; message?: string };
  if (e.name === 'TimeoutError') return 'no answer in time';
  return e.code ?? e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
