// Caps on chats in flight, per API key and per assistant, held by this process. A chat holds one
// slot of each from before the worker is called until its answer ends or its client goes away.
import { AppError } from '../platform/errors/app-error.js';

export interface ChatCaps {
  /** In-flight chats per API key; 0 = no cap. */
  perKey: number;
  /** In-flight chats per assistant (all its users together); 0 = no cap. */
  perAssistant: number;
}

export class ChatSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(readonly caps: ChatCaps) {}

  /** Takes a slot of the key and of the assistant, or throws 429 RATE_LIMITED; returns its release. */
  acquire(keyId: string, deploymentId: string): () => void {
    const held: string[] = [];
    const take = (name: string, cap: number, refusal: () => AppError) => {
      if (cap <= 0) return;
      const n = this.inFlight.get(name) ?? 0;
      if (n >= cap) {
        for (const h of held) this.drop(h);
        throw refusal();
      }
      this.inFlight.set(name, n + 1);
      held.push(name);
    };
    take(`key:${keyId}`, this.caps.perKey, () =>
      busy(this.caps.perKey, `This API key already has ${this.caps.perKey} chats in progress`),
    );
    take(`assistant:${deploymentId}`, this.caps.perAssistant, () =>
      busy(this.caps.perAssistant, `This assistant already has ${this.caps.perAssistant} chats in progress`),
    );
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const h of held) this.drop(h);
    };
  }

  /** Chats in flight under a name (tests and diagnostics). */
  count(name: string): number {
    return this.inFlight.get(name) ?? 0;
  }

  private drop(name: string) {
    const n = (this.inFlight.get(name) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(name);
    else this.inFlight.set(name, n);
  }
}

function busy(cap: number, what: string): AppError {
  return new AppError(
    'RATE_LIMITED',
    `${what} (the limit); retry when one of them has finished.`,
    { limit: cap, window: 'concurrent' },
    { 'retry-after': '1', 'ratelimit-limit': String(cap), 'ratelimit-remaining': '0', 'ratelimit-reset': '1' },
  );
}
