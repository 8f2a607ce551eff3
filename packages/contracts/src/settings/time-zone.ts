// An IANA time zone name ("Europe/Berlin", "America/New_York", "UTC"), as the runtime's Intl knows
// it: settings.timezone (the owner's default for every end user) and each user's own /timezone
// (DESIGN §9.4). A JSON Schema `format`, like telegram-text, so TypeBox (the agent), Ajv (the control
// plane's routes) and the OpenAPI document share one name and one check.
import { Format } from 'typebox/format';

export const TIME_ZONE_FORMAT = 'iana-time-zone';
export const TIME_ZONE_MAX = 64;

/** Whether Intl accepts `value` as a time zone (names only: "+02:00" offsets are refused). */
export function isTimeZone(value: string): boolean {
  if (value.length === 0 || value.length > TIME_ZONE_MAX || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/** The zone as Intl spells it ("europe/berlin" → "Europe/Berlin"), or undefined when it is none. */
export function canonicalTimeZone(value: string): string | undefined {
  if (!isTimeZone(value.trim())) return undefined;
  return new Intl.DateTimeFormat('en', { timeZone: value.trim() }).resolvedOptions().timeZone;
}

Format.Set(TIME_ZONE_FORMAT, isTimeZone);
