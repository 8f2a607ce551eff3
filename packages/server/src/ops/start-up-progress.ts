// What the control plane can truthfully say about itself while it starts: it answers the API as
// soon as it listens (the store is open and migrated), while the start-up reconcile pass is still
// creating the workers the store wants, a few at a time. A /readyz route (or a probe) reads this.
export interface ReadinessState {
  /** The API answers: the store is open and migrated. */
  serving: boolean;
  workers: {
    /** restoring: the start-up pass is creating missing workers; restored: it finished; failed: it stopped with an error (the reconciler retries). */
    phase: 'restoring' | 'restored' | 'failed';
    /** Missing workers created so far, of `total` (counted when the pass has read the store). */
    done: number;
    total: number;
    error?: string;
  };
}

export class Readiness {
  private state: ReadinessState = { serving: true, workers: { phase: 'restoring', done: 0, total: 0 } };

  progress = (done: number, total: number) => {
    this.state.workers.done = done;
    this.state.workers.total = total;
  };

  restored() {
    this.state.workers.phase = 'restored';
  }

  failed(err: Error) {
    this.state.workers.phase = 'failed';
    this.state.workers.error = err.message;
  }

  snapshot(): ReadinessState {
    return { serving: this.state.serving, workers: { ...this.state.workers } };
  }
}
