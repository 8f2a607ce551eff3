// An agent host's GET /troubles answer ({ troubles: [{ name, reason }] }), read the same way by
// every backend that asks one (the local host, the Kubernetes backend's shared hosts).

/** Worker name → its reason; entries that are not a name and a reason are left out. */
export function troublesOf(json: unknown, into = new Map<string, string>()): Map<string, string> {
  const list = (json as { troubles?: unknown } | undefined)?.troubles;
  if (!Array.isArray(list)) return into;
  for (const t of list) if (typeof t?.name === 'string' && typeof t?.reason === 'string') into.set(t.name, t.reason);
  return into;
}
