// A failed call, said plainly: the API's message, its code, and the request id to quote.
import { BerthApiError } from '@berth/client';

export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof BerthApiError ? error : undefined;
  return (
    <div className="notice notice-error" role="alert">
      {title && <strong>{title} </strong>}
      {e ? e.message : error instanceof Error ? error.message : String(error)}
      {e && e.code !== 'NETWORK_ERROR' && (
        <span className="muted">
          {' '}
          ({e.code}
          {e.requestId ? `, request ${e.requestId}` : ''})
        </span>
      )}
    </div>
  );
}

/** Messages of a form's fields from a failed call, and the rest for the form-level notice. */
export function fieldErrors(error: unknown, fields: readonly string[]) {
  if (!(error instanceof BerthApiError)) return { byField: {} as Partial<Record<string, string>>, general: error };
  const byField = error.fieldMessages(fields);
  return { byField, general: Object.keys(byField).length ? undefined : error };
}
