// What the store keeps, as numbers a capability may state to its callers (the store holds to them).

/** The newest responses kept per deployment; an older one is gone (GET 404, not continuable). */
export const STORED_RESPONSES_KEPT = 1000;
