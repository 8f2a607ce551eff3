// The `demo` model provider of `npm run demo`: a loopback OpenAI-compatible server (the testkit's
// FakeModelProvider) whose answers show what a real model does through Berth: Markdown streamed
// word by word, and tool calls (the clock, the calculator) for questions that need them; it draws
// (generate_image) and writes files (send_file) when asked, and speaks through /audio/speech.
import { FakeModelProvider, type Reply } from '../fake-model-provider.js';

export const DEMO_MODEL_KEY = 'sk-demo-berth-sandbox-key-0123456789';

type Message = { role: string; content?: unknown; name?: string };

const text = (m: Message | undefined) => (typeof m?.content === 'string' ? m.content : '');

/** What the demo model answers to a conversation (pure: the tests table it). */
export function demoReply(messages: Message[]): Reply {
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') {
    const result = text(last).slice(0, 300);
    // DESIGN §9.5: the picture and the file travel beside the answer; the answer only says so.
    if (/"ok":true/.test(result) && /picture/.test(result))
      return { content: 'Here is your picture, drawn by the demo image model. 🎨', chunkDelayMs: 30 };
    if (/"ok":true/.test(result) && /is sent to the user/.test(result))
      return { content: 'Here is your file: the demo model wrote it and the agent sent it as a document. 📎' };
    return {
      content: `Here is what the tool said:\n\n> ${result}\n\n_That was a real tool call, run by the agent._`,
      chunkDelayMs: 30,
    };
  }
  const asked = text([...messages].reverse().find((m) => m.role === 'user')).trim();
  const sum = /(-?\d+(?:\.\d+)?\s*[-+*/x×]\s*-?\d+(?:\.\d+)?)/.exec(asked);
  if (sum) return { toolCalls: [{ name: 'calculator', arguments: { expression: sum[1]!.replace(/[x×]/g, '*') } }] };
  if (/\b(time|date|day|today)\b/i.test(asked)) return { toolCalls: [{ name: 'current_datetime', arguments: {} }] };
  if (/\b(draw|picture|image|paint)\b/i.test(asked))
    return { toolCalls: [{ name: 'generate_image', arguments: { prompt: asked.slice(0, 400) } }] };
  if (/\b(csv|file|export)\b/i.test(asked))
    return {
      toolCalls: [
        {
          name: 'send_file',
          arguments: { name: 'demo.csv', content: 'feature,shown\nvoice replies,yes\npictures,yes\nfiles,yes\n' },
        },
      ],
    };
  const quoted = asked.length > 200 ? `${asked.slice(0, 200)}…` : asked;
  return {
    content: [
      `**Hello!** I am the Berth demo model. You wrote:`,
      '',
      `> ${quoted || '(nothing)'}`,
      '',
      'Things to try:',
      '- ask *what time is it?* (a tool call)',
      '- ask `what is 12*7?` (the calculator)',
      '- ask *draw a lighthouse* (a picture) or *send me a CSV* (a file)',
      '- send `/reset` to start over',
      '',
      '| Feature | Shown |',
      '| --- | --- |',
      '| Markdown | yes |',
      '| Streaming | yes |',
      '| Voice reply | below |',
    ].join('\n'),
    chunkDelayMs: 40,
  };
}

export async function startDemoModel(): Promise<FakeModelProvider> {
  const provider = await new FakeModelProvider().start();
  provider.apiKeys.add(DEMO_MODEL_KEY);
  provider.fallback = (body: { messages?: Message[] }) => demoReply(body.messages ?? []);
  return provider;
}
