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
  ],
  options: {
    includeOnly: '^packages/[^/]+/src/',
    exclude: { path: '(^|/)(dist|node_modules)/' },
    // Imports name workspace packages and `.js` files that are `.ts` sources: resolve like tsc.
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['berth-source', 'import', 'types', 'default'],
    },
  },
};
