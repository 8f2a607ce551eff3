// Every operation of the spec, as the shared suites call them.
import { activationBody } from './api.js';

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
