// Many agents in one process. Adding replaces an agent of the same name; removing stops its
// polling and drops every reference to it, so its memory can be reclaimed.
import type { Logger } from 'pino';
import { Agent, type AgentConfig } from './agent.js';
import type { SessionStore } from './sessions/store.js';
import { Scheduler, type SchedulerOptions } from './scheduler/scheduler.js';
import { userData } from './storage/user-data.js';

export class AgentHost {
  private readonly agents = new Map<string, Agent>();
  // Serialises put/remove per name, so a quick PUT-DELETE-PUT cannot leave two pollers running.
  private readonly pending = new Map<string, Promise<unknown>>();

  /** One timer for every assistant's scheduled messages on this host. */
  readonly scheduler: Scheduler;

  constructor(
    private readonly store: SessionStore,
    private readonly log: Logger,
    schedulerOptions: Partial<SchedulerOptions> = {},
  ) {
    this.scheduler = new Scheduler(userData(store).schedules, log, schedulerOptions);
  }

  get(name: string): Agent | undefined {
    return this.agents.get(name);
  }
  names(): string[] {
    return [...this.agents.keys()];
  }
  get size() {
    return this.agents.size;
  }

  put(config: AgentConfig): Promise<Agent> {
    return this.serial(config.name, async () => {
      const old = this.agents.get(config.name);
      if (old) {
        this.agents.delete(config.name);
        await old.stop();
      }
      const agent = new Agent(config, this.store, this.log, undefined, { scheduler: this.scheduler });
      this.agents.set(config.name, agent);
      agent.start();
      return agent;
    });
  }

  /** Resolves false when no agent had that name. */
  remove(name: string, opts: { purge?: boolean } = {}): Promise<boolean> {
    return this.serial(name, async () => {
      const agent = this.agents.get(name);
      this.agents.delete(name);
      await agent?.stop();
      if (opts.purge) this.store.purge(name);
      return agent !== undefined;
    });
  }

  async close() {
    this.scheduler.close();
    await Promise.all(this.names().map((n) => this.remove(n)));
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.pending.get(name) ?? Promise.resolve();
    const next = prev.catch(() => {}).then(fn);
    this.pending.set(name, next);
    void next
      .finally(() => {
        if (this.pending.get(name) === next) this.pending.delete(name);
      })
      .catch(() => {});
    return next;
  }
}
