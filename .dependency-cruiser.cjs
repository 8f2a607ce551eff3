// The house's import rules (docs/architecture.md, DESIGN §8), checked in CI by `npm run lint:deps`.
// Rules name folders, not files, so a file added to a folder falls under its folder's rule.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      // A cycle makes the load order decide behaviour and stops a folder from being read, tested or
      // moved on its own. Type-only imports count too: they still tie the two files' designs.
      name: 'no-cycles',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/' },
      to: { circular: true },
    },
    {
      // The runtime composes the agent (assistants, host, server); the rooms it composes never reach
      // back into it, so it can change how it wires them (apply-settings, restarts) freely.
      name: 'agent-nothing-imports-runtime',
      severity: 'error',
      from: {
        path: '^packages/agent/src/',
        pathNot: ['^packages/agent/src/runtime/', '^packages/agent/src/(main|index)\\.ts$'],
      },
      to: { path: '^packages/agent/src/runtime/' },
    },
    {
      // A channel (Telegram, the chat API, the ones to come) speaks to the core only through the
      // turn's contract: the inbound message, the events and the Responder/Outbound ports of
      // channels/channel.ts. Never the conversation's insides, the store or the model: no value
      // import from them. A type-only import of a port the runtime hands the channel (the
      // Transcriber, the user-data repos behind /memory and /reminders) is the seam itself.
      name: 'agent-channels-reach-core-through-its-contract',
      severity: 'error',
      from: { path: '^packages/agent/src/channels/' },
      to: {
        path: '^packages/agent/src/(core|storage|model|tools)/',
        pathNot: '^packages/agent/src/core/(events|inbound)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      // Payment adapters sit behind the payments port; routes call them, not the other way round.
      name: 'server-payments-import-no-routes',
      severity: 'error',
      from: { path: '^packages/server/src/payments/', pathNot: '/routes(/|\\.ts$)' },
      to: { path: '^packages/server/src/.*/routes(/|\\.ts$)' },
    },
    {
      // Only the store writes SQL (DESIGN §8, house style): a capability reads and writes through
      // the repos of platform/store/, so a query, its dialect differences (SQLite and PostgreSQL)
      // and its indexes are found in one place. Not even a type: a verb never holds the database
      // handle or a transaction, it asks for repositories (store.transaction(repos => …)).
      name: 'server-only-the-store-writes-sql',
      severity: 'error',
      from: { path: '^packages/server/src/', pathNot: '^packages/server/src/platform/store/' },
      to: { path: '^node_modules/(kysely|better-sqlite3|pg)/' },
    },
    {
      // One way to reach a table: the store makes every repository (platform/store/repos.ts) and
      // hands them out (services, store.repos, store.transaction). Outside the store a repository
      // module is imported for its types only; the values taken from the store are how it opens
      // (database.ts), its snapshots (sqlite-snapshot.ts), the unique-violation test and the
      // constants a capability states its limits with.
      name: 'server-repositories-come-from-the-store',
      severity: 'error',
      from: { path: '^packages/server/src/', pathNot: '^packages/server/src/platform/store/' },
      to: {
        path: '^packages/server/src/platform/store/',
        pathNot: '^packages/server/src/platform/store/(database|sqlite-snapshot|unique-violation|limits)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      // platform/ is what every capability stands on (jobs, store, http, config, crypto, events;
      // DESIGN §8): it reaches no capability, nor the composition (app, services, runtime), so a
      // capability can change or go without touching it. domain/ (the deployment state machine and
      // its value rules) is the shared kernel the store persists, so platform may use it. Where
      // platform needs a capability's answer (who is calling), it names a contract and the
      // capability fills it (platform/http/auth.ts ← accounts/identify.ts).
      name: 'server-platform-imports-no-capability',
      severity: 'error',
      from: { path: '^packages/server/src/platform/' },
      to: { path: '^packages/server/src/', pathNot: '^packages/server/src/(platform|domain)/' },
    },
    {
      // A capability's routes are its HTTP surface, registered by app.ts; another capability calls
      // its verbs, never its routes, so a route can change (or move to another listener) without
      // reaching into a second folder. Route files: `routes.ts`, `routes/`, `*-routes.ts`.
      name: 'server-capabilities-import-no-other-routes',
      severity: 'error',
      from: { path: '^packages/server/src/([^/]+)/' },
      to: {
        path: '^packages/server/src/[^/]+/(routes/|.*routes?\\.ts$)',
        // platform/http/define-route.ts is the route helper every capability uses, not a route.
        pathNot: ['^packages/server/src/$1/', '^packages/server/src/platform/'],
      },
    },
    {
      // Each capability shows the others one face, its index.ts (DESIGN §8): what is not exported
      // there is its own to change. The composition (app, runtime, services, main, index) wires
      // the insides and may reach them (runtime loads the Kubernetes backend lazily by its path).
      name: 'server-capabilities-meet-through-their-faces',
      severity: 'error',
      from: { path: '^packages/server/src/([^/]+)/', pathNot: '^packages/server/src/(platform|domain)/' },
      to: {
        path: '^packages/server/src/[^/]+/',
        pathNot: [
          '^packages/server/src/$1/',
          '^packages/server/src/(platform|domain)/',
          '^packages/server/src/[^/]+/index\\.ts$',
        ],
      },
    },
  ],
  options: {
    // The SQL libraries are in the graph only so that the store rule can name them.
    includeOnly: ['^packages/[^/]+/src/', '^node_modules/(kysely|better-sqlite3|pg)/'],
    exclude: { path: '^packages/[^/]+/dist/' },
    doNotFollow: { path: '(^|/)node_modules/' },
    // Imports name workspace packages and `.js` files that are `.ts` sources: resolve like tsc.
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['berth-source', 'import', 'types', 'default'],
    },
  },
};
