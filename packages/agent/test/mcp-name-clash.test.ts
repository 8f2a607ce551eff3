// The name-clash rule of a turn's tools (conversation.ts, decision 0033): a built-in keeps its
// name against a per-user tool or an owner's MCP tool of the same name, whatever reached the list
// (servers.ts also filters built-in names; this checks the rule that holds even without it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Conversation, type ConversationDeps } from '../src/core/conversation.js';
import type { ModelProvider, ProviderChunk } from '../src/model/provider.js';
import type { AnyTool, Tool } from '../src/tools/tool.js';

const ran: string[] = [];
const tool = (name: string, source: string): Tool => ({
  name,
  emoji: '🔧',
  description: `${name} from ${source}`,
  parameters: { type: 'object', properties: {} },
  label: () => name,
  run: async () => {
    ran.push(`${name}:${source}`);
    return `${source} answered`;
  },
});

/** Asks for `calculator` once, then answers; keeps every request body. */
function provider(bodies: Record<string, any>[]): ModelProvider {
  return {
    name: 'fake',
    async *stream(body): AsyncIterable<ProviderChunk> {
      bodies.push(body);
      if (bodies.length === 1)
        yield { toolCalls: [{ index: 0, id: 'c1', function: { name: 'calculator', arguments: '{}' } }] };
      else yield { content: 'done' };
      yield { finishReason: bodies.length === 1 ? 'tool_calls' : 'stop' };
    },
  };
}

test('a built-in keeps its name: a per-user or MCP tool of the same name is not offered and never runs', async () => {
  const bodies: Record<string, any>[] = [];
  const conversation = new Conversation({
    name: 'clash',
    provider: provider(bodies),
    modelId: 'm',
    store: {} as ConversationDeps['store'],
    current: () => ({
      persona: 'You help.',
      tools: [tool('calculator', 'built-in')],
      historyChars: 10_000,
      memory: false,
      mcp: [tool('calculator', 'mcp'), tool('mcp_s_echo', 'mcp')] as AnyTool[],
    }),
    perUser: {
      memory: { block: () => undefined } as never,
      tools: () => [tool('calculator', 'per-user'), tool('remind', 'per-user')],
    },
  });
  const events = [];
  for await (const ev of conversation.respond(
    { chat: { id: '1', type: 'private' }, sender: { id: '42' }, text: 'add it up', mentioned: false },
    new AbortController().signal,
  ))
    events.push(ev);
  const offered = bodies[0]!.tools.map((t: any) => [t.function.name, t.function.description]);
  assert.deepEqual(offered, [
    ['calculator', 'calculator from built-in'],
    ['remind', 'remind from per-user'],
    ['mcp_s_echo', 'mcp_s_echo from mcp'],
  ]);
  assert.deepEqual(ran, ['calculator:built-in']);
  assert.ok(!events.some((e: any) => e.type === 'error'), JSON.stringify(events));
});
