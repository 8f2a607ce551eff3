// Calls from the control plane to an agent inside the cluster (a dedicated worker's health, an
// agent host's admin API). Any network failure is a transient WorkerUpstreamError (503), which
// the deploy job retries until its deadline.
import { request } from 'undici';
import { WorkerUpstreamError, type WorkerHealth } from '../port.js';
import { botUsernameOf } from '../bot-username.js';

export interface AgentReply {
  status: number;
  json: any;
}

export async function agentCall(
  url: string,
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  o: { token?: string; body?: unknown; timeoutMs?: number } = {},
): Promise<AgentReply> {
  try {
    const res = await request(url, {
      method,
      headers: {
        ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
        ...(o.body ? { 'content-type': 'application/json' } : {}),
      },
      body: o.body ? JSON.stringify(o.body) : undefined,
      headersTimeout: o.timeoutMs ?? 15_000,
      bodyTimeout: o.timeoutMs ?? 15_000,
    });
    const text = await res.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json };
  } catch (err) {
    const e = new WorkerUpstreamError(503, `the agent could not be reached (${(err as Error).message})`);
    throw Object.assign(e, { code: (err as { code?: string }).code ?? 'ECONNREFUSED' });
  }
}

/**
 * How long the health watch waits for one agent's answer (a host's troubles, a pod's health): a
 * pod that hangs is asked again at the next check rather than holding this one up.
 */
export const WATCH_CALL_MS = 3_000;

/** An agent's health body, or undefined when what answered was not an agent (no endpoint yet). */
export function healthOf(reply: AgentReply): WorkerHealth | undefined {
  if (!reply.json || typeof reply.json.ready !== 'boolean') return undefined;
  return {
    ready: reply.json.ready,
    failed: reply.json.status === 'failed',
    reason: reply.json.reason ?? null,
    botUsername: botUsernameOf(reply.json),
  };
}
