// The app's JSON body parser. Beyond JSON.parse: a lone UTF-16 surrogate ("\ud800" without its
// pair, only possible as an escape) is refused with a 400. Stored as it is, SQLite keeps it while
// PostgreSQL turns it into U+FFFD, so the value read back would not be the value written, and two
// different names could become one (issue 28). A surrogate pair (an emoji) is fine.
import { AppError } from '../errors/app-error.js';

/** Only an escape can carry a surrogate in a body that arrived as UTF-8: most bodies skip the walk. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
/** With the u flag a pair is one code point: only an unpaired surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return LONE_SURROGATE.test(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (v !== null && typeof v === 'object')
    return Object.entries(v).some(([k, x]) => LONE_SURROGATE.test(k) || hasLoneSurrogate(x));
  return false;
}

/** The parsed body; undefined for an empty one (a body-less POST counts as {}). */
export function parseJsonBody(text: string): unknown {
  if (text === '' || /^\s+$/.test(text)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AppError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  if (SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(parsed))
    throw new AppError(
      'INVALID_REQUEST',
      'The request body holds a lone UTF-16 surrogate (\\uD800-\\uDFFF without its pair); send well-formed Unicode.',
    );
  return parsed;
}
