// remember, forget and search_past_conversations (DESIGN §7.4): bound to one agent and end user.
import { MAX_FACT_CHARS, type MemoryRepo } from '../../storage/memory.js';
import type { MessageSearch } from '../../storage/message-search.js';
import type { EndUser } from '../end-user.js';
import { oneStringArgument, ToolFailure, type Tool } from '../tool.js';

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export function memoryTools(deps: { memory: MemoryRepo; search: MessageSearch }, who: EndUser): Tool[] {
  const { agent, user } = who;
  const remember: Tool = {
    name: 'remember',
    emoji: '🧠',
    description:
      'Save a short fact about the user for future conversations (preferences, names, ongoing plans). Only what the user would want kept.',
    parameters: oneStringArgument('fact', 'One fact, in a short sentence'),
    label: () => 'Remembering',
    async run(args) {
      const fact = str(args.fact).replace(/\s+/g, ' ');
      if (!fact) throw new ToolFailure('Give the fact to remember as "fact".');
      if (fact.length > MAX_FACT_CHARS)
        throw new ToolFailure(`A fact may be at most ${MAX_FACT_CHARS} characters; save a shorter one.`);
      const r = deps.memory.remember(agent, user, fact);
      if (r.duplicate) return JSON.stringify({ ok: true, note: 'Already remembered.' });
      return JSON.stringify({
        ok: true,
        ...(r.archived.length
          ? { archived: r.archived, note: 'Memory is full; the oldest facts were archived (no longer shown to you).' }
          : {}),
      });
    },
  };
  const forget: Tool = {
    name: 'forget',
    emoji: '🧽',
    description: 'Forget remembered facts containing the given text, or everything with {"all": true}.',
    parameters: {
      type: 'object',
      properties: { fact: { type: 'string' }, all: { type: 'boolean' } },
      additionalProperties: false,
    },
    label: () => 'Forgetting',
    async run(args) {
      if (args.all === true) return JSON.stringify({ ok: true, forgotten: deps.memory.forgetAll(agent, user) });
      const fact = str(args.fact);
      if (!fact) throw new ToolFailure('Give "fact" (text of the fact to forget) or "all": true.');
      const n = deps.memory.forget(agent, user, fact);
      if (n === 0) throw new ToolFailure(`Nothing remembered contains "${fact}".`);
      return JSON.stringify({ ok: true, forgotten: n });
    },
  };
  const searchPast: Tool = {
    name: 'search_past_conversations',
    emoji: '🔎',
    description: "Full-text search over this user's own earlier messages with you (all past conversations).",
    parameters: oneStringArgument('query', 'Words to look for'),
    label: () => 'Searching past conversations',
    async run(args) {
      const query = str(args.query);
      if (!query) throw new ToolFailure('Give the words to search for as "query".');
      const results = deps.search.search(agent, user, query);
      return JSON.stringify(results.length ? { results } : { results, note: 'No past message matches.' });
    },
  };
  return [remember, forget, searchPast];
}
