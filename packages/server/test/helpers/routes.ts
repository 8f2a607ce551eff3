// Every operation of the spec, as the shared suites call them.
import { activationBody, activeDeployment } from './api.js';
import { startHarness, type Harness } from './harness.js';
import { orStop } from './stop-all.js';

/** Where the security suites start: a harness, an owner's key and active deployment `id`, and a stranger's key. */
export async function startOwnerAndStranger(): Promise<{ h: Harness; owner: string; stranger: string; id: string }> {
  const h = await startHarness();
  return orStop(
    () => h.close(),
    async () => {
      const owner = await h.key('owner@example.com');
      const stranger = await h.key('stranger@example.com');
      return { h, owner, stranger, id: await activeDeployment(h, owner) };
    },
  );
}

export interface RouteCase {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (id: string) => string;
  body?: unknown;
  /** Endpoints 10 and 11 also take "Authorization: Bearer". */
  bearer: boolean;
  needsId: boolean;
}

const A = '/api/v1/assistants';
export const ROUTES: RouteCase[] = [
  {
    name: 'purchase',
    method: 'POST',
    path: () => `${A}/purchase`,
    body: { apiMode: 'byok' },
    bearer: false,
    needsId: false,
  },
  {
    name: 'activate',
    method: 'POST',
    path: (id) => `${A}/${id}/activate`,
    body: activationBody('byok'),
    bearer: false,
    needsId: true,
  },
  { name: 'status', method: 'GET', path: (id) => `${A}/${id}/status`, bearer: false, needsId: true },
  { name: 'list', method: 'GET', path: () => A, bearer: false, needsId: false },
  { name: 'get', method: 'GET', path: (id) => `${A}/${id}`, bearer: false, needsId: true },
  {
    name: 'update',
    method: 'PATCH',
    path: (id) => `${A}/${id}`,
    body: { name: 'renamed' },
    bearer: false,
    needsId: true,
  },
  { name: 'redeploy', method: 'POST', path: (id) => `${A}/${id}/redeploy`, body: {}, bearer: false, needsId: true },
  { name: 'stop', method: 'POST', path: (id) => `${A}/${id}/stop`, bearer: false, needsId: true },
  { name: 'delete', method: 'DELETE', path: (id) => `${A}/${id}`, bearer: false, needsId: true },
  {
    name: 'chat',
    method: 'POST',
    path: (id) => `${A}/${id}/chat/completions`,
    body: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hi' }] },
    bearer: true,
    needsId: true,
  },
  { name: 'models', method: 'GET', path: (id) => `${A}/${id}/models`, bearer: true, needsId: true },
];

/** The account routes (docs/decisions/0019) that identify their caller; `session`: cookie only. */
export interface AccountRouteCase {
  name: string;
  method: 'GET' | 'POST' | 'DELETE';
  path: (ids: { org: string; key: string; user: string }) => string;
  body?: unknown;
  session: boolean;
}

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
export const ACCOUNT_ROUTES: AccountRouteCase[] = [
  { name: 'session', method: 'GET', path: () => '/api/auth/session', session: true },
  { name: 'sign out', method: 'POST', path: () => '/api/auth/logout', session: true },
  { name: 'sign out everywhere', method: 'POST', path: () => '/api/auth/logout-all', session: true },
  {
    name: 'change password',
    method: 'POST',
    path: () => '/api/auth/password',
    body: { currentPassword: 'x', newPassword: 'y'.repeat(12) },
    session: true,
  },
  { name: 'callback secret', method: 'GET', path: () => '/api/auth/callback-secret', session: false },
  { name: 'list keys', method: 'GET', path: () => '/api/keys', session: false },
  { name: 'create key', method: 'POST', path: () => '/api/keys', body: { name: 'k' }, session: false },
  { name: 'revoke key', method: 'DELETE', path: (i) => `/api/keys/${i.key}`, session: false },
  { name: 'list organizations', method: 'GET', path: () => '/api/organizations', session: false },
  {
    name: 'create organization',
    method: 'POST',
    path: () => '/api/organizations',
    body: { name: 'o' },
    session: false,
  },
  { name: 'list members', method: 'GET', path: (i) => `/api/organizations/${i.org}/members`, session: false },
  {
    name: 'invite member',
    method: 'POST',
    path: (i) => `/api/organizations/${i.org}/invitations`,
    body: { email: 'x@example.com', role: 'owner' },
    session: false,
  },
  {
    name: 'accept invitation',
    method: 'POST',
    path: () => `/api/invitations/${'t'.repeat(32)}/accept`,
    session: false,
  },
  {
    name: 'remove member',
    method: 'DELETE',
    path: (i) => `/api/organizations/${i.org}/members/${i.user ?? UNKNOWN}`,
    session: false,
  },
];
