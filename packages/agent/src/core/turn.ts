// One assistant turn: call the model, run the tools it asks for, call it again with their
// results, until it answers in words. Streaming and non-streaming callers share this loop.
import type { ModelProvider } from '../model/provider.js';
import { ToolFailure, toolDefinitions, type AnyTool } from '../tools/tool.js';
import type { ChatMessage, OutFile, TurnEvent, Usage } from './events.js';

export type { ChatMessage, TurnEvent, Usage } from './events.js';

export interface TurnOptions {
  provider: ModelProvider;
  modelId: string;
  messages: ChatMessage[];
  /** Client parameters passed through unchanged (temperature, top_p, max_tokens, stop, seed, ...). */
  params: Record<string, unknown>;
  tools: AnyTool[];
  signal: AbortSignal;
  /** The agent the turn belongs to (tools that share host resources queue by it). */
  tenant?: string;
  maxSteps?: number;
  /**
   * Whether pictures and files can travel with this turn's answer (DESIGN §9.5); a scheduled task's
   * answer goes out as text, so there its tools refuse in words instead of making what is dropped.
   */
  attachments?: boolean;
}

/**
 * Tool calls one model reply may make, and one turn in all (issue 57 R6: one reply asked for 60
 * reminders, 100 `remember`s or 30 web searches, the searches on the operator's bill). A call past
 * either cap is not run: the model reads a tool error saying so, and once the turn's cap is spent
 * the next call withholds the tools, so the turn still ends with an answer in words.
 */
export const MAX_TOOL_CALLS_PER_REPLY = 8;
export const MAX_TOOL_CALLS_PER_TURN = 20;

export async function* runTurn(o: TurnOptions): AsyncGenerator<TurnEvent> {
  const messages = [...o.messages];
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  const byName = new Map(o.tools.map((t) => [t.name, t]));
  const maxSteps = o.maxSteps ?? 6;
  let callsRun = 0;
  // Pictures and files the tools made for the user, delivered with the answer (DESIGN §9.5).
  const files: OutFile[] = [];
  const ctx = {
    tenant: o.tenant ?? '',
    ...(o.attachments === false ? {} : { attach: (f: OutFile) => void files.push(f) }),
    attached: (kind: OutFile['kind']) => files.filter((f) => f.kind === kind).length,
  };
  for (let step = 0; ; step++) {
    // On the last step, or with the turn's tool calls spent, tools are withheld: the model has to
    // answer in words.
    const offerTools = o.tools.length > 0 && step < maxSteps - 1 && callsRun < MAX_TOOL_CALLS_PER_TURN;
    const body = {
      ...o.params,
      model: o.modelId,
      messages,
      ...(offerTools ? { tools: toolDefinitions(o.tools) } : {}),
    };
    let content = '';
    let finishReason = 'stop';
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const chunk of o.provider.stream(body, o.signal)) {
      if (chunk.content) {
        content += chunk.content;
        yield { type: 'delta', content: chunk.content };
      }
      for (const tc of chunk.toolCalls ?? []) {
        calls[tc.index] ??= { id: '', name: '', arguments: '' };
        const call = calls[tc.index]!;
        if (tc.id) call.id = tc.id;
        if (tc.function?.name) call.name += tc.function.name;
        if (tc.function?.arguments) call.arguments += tc.function.arguments;
      }
      if (chunk.finishReason) finishReason = chunk.finishReason;
      if (chunk.usage) {
        usage.prompt_tokens += chunk.usage.prompt_tokens ?? 0;
        usage.completion_tokens += chunk.usage.completion_tokens ?? 0;
        usage.total_tokens += chunk.usage.total_tokens ?? 0;
      }
    }
    const wanted = calls.filter(Boolean);
    if (wanted.length === 0 || !offerTools) {
      yield { type: 'done', content, finishReason, usage, ...(files.length ? { files } : {}) };
      return;
    }
    messages.push({
      role: 'assistant',
      content: content || null,
      tool_calls: wanted.map((c, i) => ({
        id: c.id || `call_${step}_${i}`,
        type: 'function',
        function: { name: c.name, arguments: c.arguments },
      })),
    });
    // Images a tool returned: a tool message carries text only, so they follow as one user message.
    const images: Array<{ tool: string; urls: string[] }> = [];
    for (const [i, call] of wanted.entries()) {
      const tool = byName.get(call.name);
      let args: Record<string, unknown> = {};
      try {
        args = call.arguments ? JSON.parse(call.arguments) : {};
      } catch {
        /* reported below */
      }
      let result: string;
      // Every call still gets its tool message (the API requires one per tool_call id).
      const capped = capMessage(i, callsRun);
      if (capped) {
        result = JSON.stringify({ error: capped });
      } else if (!tool) {
        result = JSON.stringify({ error: `No tool named "${call.name}".` });
      } else {
        callsRun++;
        yield { type: 'tool', tool: tool.name, emoji: tool.emoji, label: tool.label(args) };
        try {
          const out = await tool.run(args, o.signal, ctx);
          if (typeof out === 'string') result = out;
          else {
            result = out.text;
            if (out.images.length) images.push({ tool: tool.name, urls: out.images });
          }
        } catch (err) {
          if (o.signal.aborted) throw err;
          result = JSON.stringify({
            error: err instanceof ToolFailure ? err.message : `The tool failed: ${(err as Error).message}`,
          });
        }
      }
      messages.push({ role: 'tool', tool_call_id: call.id || `call_${step}_${i}`, content: result });
    }
    if (images.length)
      messages.push({
        role: 'user',
        content: images.flatMap((r) => [
          { type: 'text' as const, text: `Images returned by the tool ${r.tool}:` },
          ...r.urls.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
        ]),
      });
  }
}

/** Why call number `index` of a reply is not run, when `runBefore` calls of the turn already ran. */
function capMessage(index: number, runBefore: number): string | undefined {
  if (index >= MAX_TOOL_CALLS_PER_REPLY)
    return `Not run: at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls per reply. Answer with the results you have, or ask the user to go on.`;
  if (runBefore >= MAX_TOOL_CALLS_PER_TURN)
    return `Not run: at most ${MAX_TOOL_CALLS_PER_TURN} tool calls per message from the user. Answer with the results you have.`;
  return undefined;
}
