// The model provider port: an OpenAI chat completions endpoint, streamed.

export interface ToolCallDelta {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export interface ProviderChunk {
  content?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

export interface ModelProvider {
  readonly name: string;
  /** Streams one completion. `body` is the request body without `stream`; throws ProviderError. */
  stream(body: Record<string, unknown>, signal: AbortSignal): AsyncIterable<ProviderChunk>;
}

// 'credits': the control plane's model gateway says this assistant's monthly allowance is spent.
export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'credits'
  | 'bad_request'
  | 'timeout'
  | 'unavailable'
  | 'upstream';

export class ProviderError extends Error {
  constructor(
    readonly kind: ProviderErrorKind,
    readonly provider: string,
    readonly status: number | undefined,
    detail: string,
    /** For 'credits': when the allowance renews and how long to wait, as the gateway said. */
    readonly renewal?: { renewsAt?: string; retryAfter?: string },
    /** For 'rate_limit': the provider's Retry-After and x-ratelimit-* headers, relayed to API clients. */
    readonly retryHeaders?: Record<string, string>,
  ) {
    super(describe(kind, provider, status, detail));
    this.name = 'ProviderError';
  }
}

function describe(kind: ProviderErrorKind, provider: string, status: number | undefined, detail: string) {
  const said = detail ? `: ${detail}` : '';
  switch (kind) {
    case 'auth':
      return `The model provider ${provider} rejected the API key (${status})${said}`;
    case 'rate_limit':
      return `The model provider ${provider} is rate-limiting requests (429)${said}`;
    case 'credits':
      return detail || 'The monthly model credits of this assistant are used up.';
    case 'bad_request':
      return `The model provider ${provider} refused the request (${status})${said}`;
    case 'timeout':
      return `The model provider ${provider} did not answer in time${said}`;
    case 'unavailable':
      return `The model provider ${provider} could not be reached${said}`;
    case 'upstream':
      return `The model provider ${provider} failed (${status ?? 'no status'})${said}`;
  }
}
