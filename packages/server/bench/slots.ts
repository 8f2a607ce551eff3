// For the benchmarks' control planes: a router catalog, a user's API key, its JSON calls over HTTP,
// and a slot bought, paid at the local checkout and activated the way a user does it, through the
// app itself.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { createApiKey, createRuntime, loadConfig, type Runtime } from '@berth/server';

/** A model catalog with the router at `routerUrl` and one priced model, router/bench; returns its path. */
export function routerCatalog(dir: string, routerUrl: string): string {
  const file = join(dir, 'models.json');
  const model = { id: 'router/bench', pricing: { prompt: 1, completion: 2 } };
  writeFileSync(file, JSON.stringify({ providers: [{ id: 'openrouter', baseUrl: routerUrl, models: [model] }] }));
  return file;
}

/** A new API key of the user with this email (created if need be). */
export async function benchKey(rt: Runtime, email = 'bench@example.com'): Promise<string> {
  const deps = { users: rt.services.users, secrets: rt.secrets, now: () => new Date() };
  return (await createApiKey(deps, email)).key;
}

/** A JSON call to the control plane at `url` with this API key, over real HTTP (what a timing measures). */
export function keyCaller(url: string, key: string) {
  return async (method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown) => {
    const res = await request(`${url}${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.statusCode, json: (await res.body.json()) as any };
  };
}

/**
 * A control plane on the local backend listening on loopback, with `env` (its data dir and fakes)
 * and warnings only logged; a user's key (`email`) and that key's calls over HTTP.
 */
export async function listeningControlPlane(env: Record<string, string>, email: string) {
  const rt = await createRuntime(loadConfig({ ...env, MANAGED_PROVIDER_API_KEY: 'sk-bench', LOG_LEVEL: 'warn' }), {});
  const url = await rt.app.listen({ port: 0, host: '127.0.0.1' });
  const key = await benchKey(rt, email);
  return { rt, url, call: keyCaller(url, key) };
}

export async function buyAndActivate(
  rt: Runtime,
  key: string,
  apiMode: 'byok' | 'managed' | 'unlimited',
  activation: Record<string, unknown>,
): Promise<string> {
  const headers = { 'x-api-key': key };
  const bought = (
    await rt.app.inject({ method: 'POST', url: '/api/v1/assistants/purchase', headers, payload: { apiMode } })
  ).json().data as { deploymentId: string; checkoutUrl: string };
  await rt.app.inject({ method: 'POST', url: `${new URL(bought.checkoutUrl).pathname}/complete` });
  await rt.app.inject({
    method: 'POST',
    url: `/api/v1/assistants/${bought.deploymentId}/activate`,
    headers,
    payload: activation,
  });
  return bought.deploymentId;
}

/** A bot token the benches put in activations; no bench starts a bot with it. */
export const BENCH_BOT_TOKEN = '7000000000:AAbenchmarkBotTokenNotUsedForAnything_x';

/** A paid, activated byok slot on OpenAI's gpt-4o-mini: the one assistant most benches drive. */
export function byokBenchSlot(rt: Runtime, key: string, name: string): Promise<string> {
  return buyAndActivate(rt, key, 'byok', {
    name,
    modelProvider: 'openai',
    modelId: 'gpt-4o-mini',
    messengerBotToken: BENCH_BOT_TOKEN,
    modelApiKey: 'sk-bench',
  });
}
