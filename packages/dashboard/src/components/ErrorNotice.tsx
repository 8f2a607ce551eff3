// A failed call, said plainly: the API's message in the words of the form; the code and the request
// id only where a person can do nothing but report it (a 500, an unreachable worker).
import { BerthApiError } from '@berth/client';
import { humanMessage, REPORTABLE } from './human-message';

export function ErrorNotice({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const e = error instanceof BerthApiError ? error : undefined;
  return (
    <div className="notice notice-error" role="alert">
      {title && <strong>{title} </strong>}
      {humanMessage(e ? e.message : error instanceof Error ? error.message : String(error))}
      {e && REPORTABLE.has(e.code) && (
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
  const byField = Object.fromEntries(
    Object.entries(error.fieldMessages(fields)).map(([k, v]) => [k, v && humanMessage(v)]),
  ) as Partial<Record<string, string>>;
  return { byField, general: Object.keys(byField).length ? undefined : error };
}
