// A model provider whose key the provider rejected says so in the assistant's health (and so in
// the control plane's statusMessage), until a call succeeds again: an owner whose key was revoked
// learns it from the status, not from users who get no answers (issue 57, finding 1).
import { ProviderError, type ModelProvider, type ProviderChunk } from './provider.js';

export class WatchedProvider implements ModelProvider {
  /** Why the provider refuses this assistant's calls (its key was rejected), until one succeeds. */
  problem: string | undefined;

  constructor(private readonly inner: ModelProvider & { close?(): void }) {}

  get name() {
    return this.inner.name;
  }

  async *stream(body: Record<string, unknown>, signal: AbortSignal): AsyncIterable<ProviderChunk> {
    let answered = false;
    try {
      for await (const chunk of this.inner.stream(body, signal)) {
        if (!answered) {
          answered = true;
          this.problem = undefined;
        }
        yield chunk;
      }
    } catch (err) {
      if (err instanceof ProviderError && err.kind === 'auth')
        this.problem = `${err.message}. Update the model API key of this assistant.`;
      throw err;
    }
  }

  close() {
    this.inner.close?.();
  }
}
