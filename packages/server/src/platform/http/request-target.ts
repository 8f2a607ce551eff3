// The path a request target names, as a check that must not be dodged by spelling reads it: percent-
// decoded, dot segments resolved, repeated slashes folded (the origin and absolute forms too).

/**
 * A target made only of letters, digits, `-`, `_`, `~` and single slashes is its own path: nothing
 * in it is decoded, resolved or folded. Most requests are such, and parsing each one with the URL
 * parser was 2 % of a proxied chat's CPU (docs/decisions/0027-scale.md, round 6).
 */
const PLAIN_TARGET = /^(?:\/[A-Za-z0-9_~-]+)+\/?(?=[?#]|$)|^\/(?=[?#]|$)/;

/** The target's path without its query, or undefined when it cannot be parsed or decoded. */
export function targetPath(target: string): string | undefined {
  const plain = PLAIN_TARGET.exec(target);
  if (plain) return plain[0];
  try {
    return decodeURIComponent(new URL(target, 'http://berth.invalid').pathname).replace(/\/{2,}/g, '/');
  } catch {
    return undefined;
  }
}
