// The per-user repos of one store, prepared once and shared by every agent of the host.
import type { SessionStore } from './sessions.js';
import { MemoryRepo } from './memory.js';
import { MessageSearch } from './message-search.js';
import { ScheduleRepo } from './schedules.js';
import { TransferRepo } from './transfer.js';
import { UserPrefsRepo } from './user-prefs.js';

export interface UserData {
  memory: MemoryRepo;
  search: MessageSearch;
  schedules: ScheduleRepo;
  transfer: TransferRepo;
  prefs: UserPrefsRepo;
}

const cache = new WeakMap<SessionStore, UserData>();

export function userData(store: SessionStore): UserData {
  let d = cache.get(store);
  if (!d) {
    d = {
      memory: new MemoryRepo(store.db),
      search: new MessageSearch(store.db),
      schedules: new ScheduleRepo(store.db),
      transfer: new TransferRepo(store.db),
      prefs: new UserPrefsRepo(store.db),
    };
    cache.set(store, d);
  }
  return d;
}
