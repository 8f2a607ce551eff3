// Drives the account routes as the dashboard does: a session cookie and the CSRF header.
import assert from 'node:assert/strict';
import type { Harness } from './harness.js';

export const PASSWORD = 'correct horse battery';

export interface Browser {
  userId: string;
  email: string;
  cookie: string;
  csrf: string;
  /** Headers of a cookie request; `write` adds the CSRF header, `org` acts as an organization. */
  headers(opts?: { write?: boolean; org?: string }): Record<string, string>;
}

export function browser(userId: string, email: string, cookie: string, csrf: string): Browser {
  return {
    userId,
    email,
    cookie,
    csrf,
    headers(opts = {}) {
      return {
        cookie: `berth_session=${cookie}`,
        ...(opts.write ? { 'x-berth-csrf': csrf } : {}),
        ...(opts.org ? { 'x-berth-organization': opts.org } : {}),
      };
    },
  };
}

/** A caller that signs with an API key where a browser would send its session: the account routes take either. */
export function withApiKey(key: string): Pick<Browser, 'headers'> {
  return { headers: () => ({ 'x-api-key': key }) };
}

export function sessionCookie(res: { cookies: Array<{ name: string; value: string }> }): string {
  const c = res.cookies.find((x) => x.name === 'berth_session');
  assert.ok(c, 'a berth_session cookie is set');
  return c.value;
}

/** A client address of its own per sign-up: sign-ups are limited per address (login-limit.ts). */
const someAddress = () => `10.${[0, 0, 0].map(() => Math.floor(Math.random() * 250) + 1).join('.')}`;

export async function signUp(h: Harness, email: string, password = PASSWORD, invitation?: string): Promise<Browser> {
  const res = await h.inject({
    method: 'POST',
    url: '/api/auth/signup',
    payload: { email, password, ...(invitation ? { invitation } : {}) },
    remoteAddress: someAddress(),
  });
  assert.equal(res.statusCode, 201, res.body);
  const { user, csrfToken } = res.json().data;
  return browser(user.id, user.email, sessionCookie(res), csrfToken);
}

export async function signIn(h: Harness, email: string, password = PASSWORD, remoteAddress?: string) {
  return h.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
    ...(remoteAddress ? { remoteAddress } : {}),
  });
}

export async function createKey(h: Harness, b: Pick<Browser, 'headers'>, name: string, organizationId?: string) {
  const res = await h.inject({
    method: 'POST',
    url: '/api/keys',
    headers: b.headers({ write: true }),
    payload: { name, ...(organizationId ? { organizationId } : {}) },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data as { id: string; key: string; prefix: string; organizationId: string | null };
}

/** A new organization that `b` owns; returns its id. */
export async function createOrganization(h: Harness, b: Pick<Browser, 'headers'>, name: string): Promise<string> {
  const res = await h.inject({
    method: 'POST',
    url: '/api/organizations',
    headers: b.headers({ write: true }),
    payload: { name },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().data.id;
}
