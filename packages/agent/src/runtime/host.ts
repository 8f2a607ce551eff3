// Many assistants in one process. Adding replaces an assistant of the same name; removing stops
// its polling and drops every reference to it, so its memory can be reclaimed.
import type { Logger } from 'pino';
// Types only: an assistant's module (and the settings schema it defaults from) loads with the
// first PUT, so an empty host carries neither (test/start-up.test.ts).
import type { Assistant, AssistantConfig } from './assistant.js';
import type { SessionStore } from '../storage/sessions.js';
import { Scheduler, type SchedulerOptions } from '../scheduler/scheduler.js';
import { ScheduleRepo } from '../storage/schedules.js';
import { accessStoreFor } from '../storage/access.js';
import { userData } from '../storage/user-data.js';
import { KeyedLock } from '../core/keyed-lock.js';
import type { UserDataExport } from '../storage/transfer.js';
import type { AssistantSettings } from '@berth/contracts/settings';
import type { ChannelConfig } from '../channels/channel.js';

type AssistantModule = typeof import('./assistant.js');
let loading: Promise<AssistantModule> | undefined;
const loadAssistant = () => (loading ??= import('./assistant.js'));

export class AgentHost {
  private readonly agents = new Map<string, Assistant>();
  // Serialises put/remove per name, so a quick PUT-DELETE-PUT cannot leave two pollers running.
  private readonly perName = new KeyedLock();

  /** One timer for every assistant's scheduled messages on this host. */
  readonly scheduler: Scheduler;

  constructor(
    private readonly store: SessionStore,
    private readonly log: Logger,
    schedulerOptions: Partial<SchedulerOptions> = {},
  ) {
    this.scheduler = new Scheduler(new ScheduleRepo(store.db), log, schedulerOptions);
  }

  get(name: string): Assistant | undefined {
    return this.agents.get(name);
  }
  names(): string[] {
    return [...this.agents.keys()];
  }
  all(): Iterable<Assistant> {
    return this.agents.values();
  }
  /**
   * A page of the names in order (GET /agents?after=&limit=): sorted once when first asked,
   * then kept in order by each put and remove (a binary search and a splice), so a control plane
   * that prunes between the pages of its walk does not make the host sort 100,000 names a page.
   * Until a list is asked for, puts (a restore of thousands) pay nothing for it.
   */
  namesAfter(after: string | undefined, limit: number): { names: string[]; more: boolean } {
    this.sorted ??= [...this.agents.keys()].sort();
    // `after` need not be a name the host still runs (one removed since the page before).
    const from = after === undefined ? 0 : firstAbove(this.sorted, after);
    return { names: this.sorted.slice(from, from + limit), more: from + limit < this.sorted.length };
  }
  private sorted: string[] | undefined;
  private listed(name: string, present: boolean) {
    const sorted = this.sorted;
    if (!sorted) return;
    const at = firstAbove(sorted, name) - 1;
    const there = at >= 0 && sorted[at] === name;
    if (present && !there) sorted.splice(at + 1, 0, name);
    else if (!present && there) sorted.splice(at, 1);
  }
  get size() {
    return this.agents.size;
  }
  /** Each assistant's channel state, for the metrics (one pass, nothing kept). */
  *states(): Iterable<string> {
    for (const agent of this.agents.values()) yield agent.state;
  }

  put(config: AssistantConfig): Promise<Assistant> {
    return this.serial(config.name, async () => {
      const { Assistant } = await loadAssistant();
      const old = this.agents.get(config.name);
      if (old) {
        this.agents.delete(config.name);
        this.listed(config.name, false);
        await old.stop();
      }
      const agent = new Assistant(config, this.store, this.log, undefined, { scheduler: this.scheduler });
      this.agents.set(config.name, agent);
      this.listed(config.name, true);
      agent.start();
      return agent;
    });
  }

  /**
   * Swaps a running assistant's settings in place (Assistant.useSettings), in line with puts
   * and removes of the same name. Resolves false when no assistant has that name: it never makes one.
   */
  applySettings(name: string, settings: AssistantSettings): Promise<boolean> {
    return this.serial(name, async () => {
      const agent = this.agents.get(name);
      if (!agent) return false;
      agent.useSettings(settings);
      return true;
    });
  }

  /** One channel of a running assistant attached, replaced or removed (undefined); false without one. */
  applyChannel(name: string, type: string, config: ChannelConfig | undefined): Promise<boolean> {
    return this.serial(name, async () => {
      const agent = this.agents.get(name);
      if (!agent) return false;
      await agent.useChannel(type, config);
      return true;
    });
  }

  /** Resolves false when no agent had that name. */
  remove(name: string, opts: { purge?: boolean } = {}): Promise<boolean> {
    return this.serial(name, async () => {
      const agent = this.agents.get(name);
      this.agents.delete(name);
      this.listed(name, false);
      await agent?.stop();
      if (opts.purge) {
        this.store.purge(name);
        accessStoreFor(this.store.dataDir).purge(name);
      }
      return agent !== undefined;
    });
  }

  /**
   * The assistant leaves this host (it moves to another host or pod): it stops here — no more
   * polling, no more claims of its schedules — and its users' data is read after that, so every
   * occurrence is either claimed here (and in the export as such) or left for the next worker.
   * The rows stay until the control plane purges them once the next worker has them.
   */
  handover(name: string): Promise<UserDataExport> {
    return this.serial(name, async () => {
      const agent = this.agents.get(name);
      this.agents.delete(name);
      this.listed(name, false);
      await agent?.stop();
      return userData(this.store).transfer.export(name);
    });
  }

  /** Takes in a moved assistant's data (once per export), then looks for its due schedules. */
  importUserData(name: string, data: UserDataExport): Promise<boolean> {
    return this.serial(name, async () => {
      const imported = userData(this.store).transfer.import(name, data);
      this.scheduler.wake();
      return imported;
    });
  }

  async close() {
    this.scheduler.close();
    await Promise.all(this.names().map((n) => this.remove(n)));
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.perName.run(name, fn);
  }
}

/** Where the first name greater than `name` is (or would be) in `sorted`: a binary search. */
function firstAbove(sorted: readonly string[], name: string): number {
  let lo = 0;
  for (let hi = sorted.length; lo < hi; ) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= name) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
