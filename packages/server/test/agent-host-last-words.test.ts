// The error a control plane gives when its agent host dies before listening names what the host
// said (agent-host-last-words.ts), not Node's closing version line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastWords } from '../src/workers/agent-host-last-words.js';

// What Node 20 prints for a program it cannot load (run as a uid that cannot enter the checkout).
const NOT_FOUND = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/tmp/rehearse.4k9d/main/packages/agent/bin/berth-agent.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at Module._load (node:internal/modules/cjs/loader:1038:27)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2`.split('\n');

test("the host's error line is its last words, not Node's version; run as another uid, with what to check", () => {
  assert.equal(
    lastWords(NOT_FOUND),
    "Error: Cannot find module '/tmp/rehearse.4k9d/main/packages/agent/bin/berth-agent.js'",
  );
  const asUid = lastWords(NOT_FOUND, 64999);
  assert.match(
    asUid,
    /^Error: Cannot find module '.*berth-agent\.js' \(the agent host runs as uid 64999, AGENT_HOST_UID: /,
  );
  assert.match(asUid, /enter every directory above the code and read it, or the build is missing/);
});

test("an unreachable dependency (ESM's words), an error inside another, a rejection of a non-error", () => {
  assert.match(
    lastWords(
      [
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'pino' imported from /srv/berth/packages/agent/dist/main.js",
        '    at packageResolve (node:internal/modules/esm/resolve:854:9) {',
        "  code: 'ERR_MODULE_NOT_FOUND'",
        '}',
        '',
        'Node.js v20.20.2',
      ],
      64999,
    ),
    /^Error \[ERR_MODULE_NOT_FOUND\]: Cannot find package 'pino' .* \(the agent host runs as uid 64999/,
  );
  assert.equal(
    lastWords([
      'AggregateError [ECONNREFUSED]: ',
      '    at internalConnectMultiple (node:net:1118:18) {',
      "  code: 'ECONNREFUSED',",
      '  [errors]: [',
      '    Error: connect ECONNREFUSED ::1:9',
      '  ]',
      '}',
    ]),
    'AggregateError [ECONNREFUSED]:',
  );
  assert.equal(
    lastWords([
      'node:internal/process/promises:289',
      '            triggerUncaughtException(err, true /* fromPromise */);',
      '            ^',
      '',
      '[UnhandledPromiseRejection: This error originated either by throwing inside of an async function without a catch block. The promise rejected with the reason "x".] {',
      "  code: 'ERR_UNHANDLED_REJECTION'",
      '}',
    ]).slice(0, 59),
    '[UnhandledPromiseRejection: This error originated either by',
  );
});

test('a line the host says before it exits is said as it is; nothing said is nothing', () => {
  assert.equal(
    lastWords(['LISTEN_SOCKET: required (a path for the host to listen on)', '']),
    'LISTEN_SOCKET: required (a path for the host to listen on)',
  );
  assert.equal(
    lastWords(
      ['TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string', 'Node.js v22.1.0'],
      64999,
    ),
    'TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string',
  );
  assert.equal(lastWords([]), '');
  assert.equal(lastWords(['Node.js v20.20.2']), '');
  assert.equal(lastWords(['x'.repeat(2000)]).length, 500);
});
