// Calls from the control plane to an agent's HTTP API, for both worker backends: the local agent
// host through its kept pool on a Unix socket, and agents in the cluster (a dedicated worker, an
// agent host) by URL. A failure to connect is a WorkerUpstreamError carrying the socket's code
// (ECONNREFUSED…) and the kind of failure, never the address (describeNetworkError).
import { request, type Dispatcher } from 'undici';
import { describeNetworkError } from '@berth/contracts/net';
import { WorkerUpstreamError, type WorkerHealth, type WorkerNamesPage } from './port.js';
import { botUsernameOf } from './bot-username.js';

export interface AgentReply {
  status: number;
  /** The body parsed, or undefined when it is empty or not JSON (what answered was not an agent). */
  json: any;
  text: string;
}

export interface AgentCallOptions {
  token?: string;
  body?: unknown;
  /** Named when it cannot be reached. */
  who?: string;
  /**
   * The status a failure to connect carries: 503 when not given, which the deploy job retries
   * until its deadline; the local host passes undefined (none: its restart is what brings it back).
   */
  unreachableStatus?: number;
  /** How long to wait for the answer (15 s when not given). */
  timeoutMs?: number;
}

/** `to`: a URL, or a path on a kept pool. */
export async function agentCall(
  to: string | { pool: Dispatcher; path: string },
  method: 'GET' | 'PUT' | 'POST' | 'DELETE',
  o: AgentCallOptions = {},
): Promise<AgentReply> {
  const options = {
    method,
    headers: {
      ...(o.token ? { authorization: `Bearer ${o.token}` } : {}),
      ...(o.body ? { 'content-type': 'application/json' } : {}),
    },
    body: o.body ? JSON.stringify(o.body) : undefined,
    headersTimeout: o.timeoutMs ?? 15_000,
    bodyTimeout: o.timeoutMs ?? 15_000,
  };
  try {
    const res =
      typeof to === 'string' ? await request(to, options) : await to.pool.request({ ...options, path: to.path });
    const text = await res.body.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.statusCode, json, text };
  } catch (err) {
    const status = 'unreachableStatus' in o ? o.unreachableStatus : 503;
    const e = new WorkerUpstreamError(
      status,
      `${o.who ?? 'the agent'} could not be reached (${describeNetworkError(err)})`,
    );
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

/** An agent's refusal as an error: its own message, else who answered which status. */
export function refusal(reply: AgentReply, who: string): WorkerUpstreamError {
  return new WorkerUpstreamError(reply.status, reply.json?.error?.message ?? `${who} answered ${reply.status}`);
}

/** The answer to PUT …/settings: swapped in place, or no such assistant there. */
export function settingsApplied(reply: AgentReply, who: string): 'applied' | 'not_found' {
  if (reply.status === 200) return 'applied';
  if (reply.status === 404) return 'not_found';
  throw refusal(reply, who);
}

/** A page of an agent host's GET /agents: names in order, and the cursor of the page after. */
export function namesOf(json: unknown): WorkerNamesPage {
  const page = json as { agents?: { name: string }[]; next?: unknown } | undefined;
  const names = (page?.agents ?? []).map((a) => a.name);
  return typeof page?.next === 'string' ? { names, next: page.next } : { names };
}
