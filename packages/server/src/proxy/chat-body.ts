// The chat body is forwarded byte for byte, so it is parsed here only to check it.
import { Value } from 'typebox/value';
import { AppError } from '../errors/app-error.js';
import { ChatCompletionBody } from '../schemas/chat.js';

export function checkChatBody(raw: Buffer | undefined): { stream: boolean } {
  if (!raw || raw.length === 0) throw new AppError('INVALID_REQUEST', 'The request body is empty; send a chat completion request as JSON.');
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new AppError('INVALID_REQUEST', 'The request body is not valid JSON.');
  }
  if (!Value.Check(ChatCompletionBody, body)) {
    const first = [...Value.Errors(ChatCompletionBody, body)].slice(0, 5);
    const model = (body as { model?: unknown })?.model;
    const hint = typeof model === 'string' && model !== 'assistant-agent' ? ` Use "model": "assistant-agent" (got "${model.slice(0, 64)}").` : '';
    throw new AppError(
      'INVALID_REQUEST',
      `Invalid chat completion request: ${first.map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ')}.${hint}`,
    );
  }
  return { stream: (body as { stream?: boolean }).stream === true };
}
