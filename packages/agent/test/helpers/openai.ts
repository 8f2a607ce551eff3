// The agent's chat API as an OpenAI SDK user drives it (the SDK's README loop).
import OpenAI from 'openai';
import { GATEWAY } from './serve.js';

/** The official SDK pointed at a host's chat API, with no retries (a test sees the first answer). */
export const openAiClient = (url: string) => new OpenAI({ apiKey: GATEWAY, baseURL: `${url}/v1`, maxRetries: 0 });

/** One user message, answered as a stream and read as the SDK's README reads one: its text. */
export async function streamedText(client: OpenAI, content: string): Promise<string> {
  const stream = await client.chat.completions.create({
    model: 'assistant-agent',
    messages: [{ role: 'user', content }],
    stream: true,
  });
  let text = '';
  for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
  return text;
}
