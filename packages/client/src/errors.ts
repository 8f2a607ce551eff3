// Turns the control plane's error envelope `{ error: { code, message, details? } }` into one typed
// Error, so callers switch on `code` (from the one table in @berth/contracts) instead of statuses.
import type { ErrorCode } from '@berth/contracts';

export class BerthApiError extends Error {
  override readonly name = 'BerthApiError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode | 'NETWORK_ERROR',
    message: string,
    readonly details?: unknown,
    /** The x-request-id of the answer, to quote in a report. */
    readonly requestId?: string,
  ) {
    super(message);
  }

  /**
   * The message to show next to each named field: from the validation details (`path` "/name",
   * `missingProperty`) or, for the service's own checks, a message that starts with the field name.
   */
  fieldMessages(fields: readonly string[]): Partial<Record<string, string>> {
    const out: Partial<Record<string, string>> = {};
    const details = Array.isArray(this.details) ? (this.details as Record<string, unknown>[]) : [];
    for (const d of details) {
      const named = typeof d.missingProperty === 'string' ? d.missingProperty : String(d.path ?? '').split('/')[1];
      if (named && fields.includes(named)) out[named] ??= this.message;
    }
    for (const f of fields) {
      if (new RegExp(`^"?${f}\\b|"${f}"`).test(this.message)) out[f] ??= this.message;
    }
    return out;
  }
}

interface Envelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}

function isEnvelope(body: unknown): body is Envelope {
  const e = (body as Envelope | undefined)?.error;
  return typeof e === 'object' && e !== null && typeof e.code === 'string' && typeof e.message === 'string';
}

/** The typed error of a failed answer; a body that is not an envelope still gives a clear message. */
export function toBerthError(body: unknown, response: Response): BerthApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (isEnvelope(body)) {
    return new BerthApiError(response.status, body.error.code, body.error.message, body.error.details, requestId);
  }
  return new BerthApiError(
    response.status,
    response.status >= 500 ? 'INTERNAL_ERROR' : 'INVALID_REQUEST',
    `The server answered ${response.status} ${response.statusText}`.trim(),
    undefined,
    requestId,
  );
}

/** The `data` of a success, or the typed error of a failure (openapi-fetch's result shape). */
export async function unwrap<D>(
  pending: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<D extends { data: infer T } ? T : D> {
  let result: { data?: D; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (err) {
    if (err instanceof DOMException && err.name === 'AbortError') throw err;
    throw new BerthApiError(0, 'NETWORK_ERROR', `The server could not be reached: ${(err as Error).message}`);
  }
  if (result.error !== undefined || !result.response.ok) throw toBerthError(result.error, result.response);
  const data = result.data as { data?: unknown } | undefined;
  return (data && typeof data === 'object' && 'data' in data ? data.data : data) as never;
}
