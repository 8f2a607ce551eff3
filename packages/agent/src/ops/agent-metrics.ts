// The agent's metric families, read when a scrape asks: the counters (counters.ts), the process's
// resident memory, and its assistants by channel state (one pass over the host's assistants).
import {
  counters,
  MCP_CALL_OUTCOMES,
  POOL_OUTCOMES,
  POOLS,
  SCHEDULED_OUTCOMES,
  TELEGRAM_ERROR_KINDS,
} from './counters.js';
import type { Family } from './exposition.js';

/** An assistant's channel state; "disabled" when it has no bot (chat API only). */
export const AGENT_STATES = ['connecting', 'connected', 'failed', 'stopped', 'disabled'] as const;

export function agentFamilies(states: () => Iterable<string>): Family[] {
  const byState = new Map<string, number>(AGENT_STATES.map((s) => [s, 0]));
  for (const s of states()) byState.set(s, (byState.get(s) ?? 0) + 1);
  return [
    {
      name: 'berth_agent_host_rss_bytes',
      help: 'Resident memory of this agent host process.',
      type: 'gauge',
      samples: [{ value: process.memoryUsage.rss() }],
    },
    {
      name: 'berth_agents',
      help: "Assistants on this agent host by their Telegram channel's state (disabled: no bot).",
      type: 'gauge',
      samples: [...byState].map(([state, value]) => ({ labels: { state }, value })),
    },
    {
      name: 'berth_telegram_errors_total',
      help: 'Failed Telegram Bot API calls (long polls included) by kind.',
      type: 'counter',
      samples: TELEGRAM_ERROR_KINDS.map((kind) => ({ labels: { kind }, value: counters.telegramErrors[kind] })),
    },
    {
      name: 'berth_scheduled_sends_total',
      help: 'Reminders and scheduled tasks that came due, by outcome (refused: a task not run, its user told why; skipped: nothing sent; missed: too late).',
      type: 'counter',
      samples: SCHEDULED_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: counters.scheduledSends[outcome] })),
    },
    {
      name: 'berth_agent_pool_jobs_total',
      help: 'Jobs of the worker-thread pools (html pages, documents) by outcome (refused: the queue was full).',
      type: 'counter',
      samples: POOLS.flatMap((pool) =>
        POOL_OUTCOMES.map((outcome) => ({ labels: { pool, outcome }, value: counters.poolJobs[pool][outcome] })),
      ),
    },
    {
      name: 'berth_mcp_tool_calls_total',
      help: "Calls of owners' MCP tools by outcome (failed: a tool error for the model).",
      type: 'counter',
      samples: MCP_CALL_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: counters.mcpCalls[outcome] })),
    },
  ];
}
