// What both Vercel AI SDK providers' tests (vercel-ai-sdk: chat completions; vercel-ai-sdk-responses:
// the Responses API) do alike, whichever provider makes the model.
import assert from 'node:assert/strict';
import { generateText, type LanguageModel } from 'ai';
import { TOOL_ANSWER, type CompatBed } from './client-compat.js';

/** Every part of a stream; the SDK reports failures as `error` parts, not as a rejection. */
export async function drain(result: { fullStream: AsyncIterable<{ type: string }> }) {
  const parts: Array<{ type: string; [k: string]: unknown }> = [];
  for await (const part of result.fullStream) parts.push(part);
  return parts;
}

/** Every part of a stream that must have no `error` part (`message`: what one would mean). */
export async function drainWithoutError(result: { fullStream: AsyncIterable<{ type: string }> }, message?: string) {
  const parts = await drain(result);
  assert.deepEqual(
    parts.filter((p) => p.type === 'error'),
    [],
    message,
  );
  return parts;
}

/** generateText over a turn in which the assistant runs its own tool: the SDK sees only the answer. */
export async function assertToolTurnAnswered(bed: CompatBed, model: LanguageModel): Promise<void> {
  bed.scriptToolTurn();
  const res = await generateText({ model, prompt: '2+2?' });
  assert.equal(res.text, TOOL_ANSWER);
  bed.assertToolRan();
}
