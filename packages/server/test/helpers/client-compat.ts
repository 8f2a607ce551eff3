// The test bed of the client-compatibility suite (test/client-compat/*.test.ts): one real control
// plane and agent host (helpers/e2e.ts), an active deployment to talk to and a stopped one that
// answers ASSISTANT_NOT_READY, and the few facts every client family's tests assert on.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { startE2E, type E2E } from './e2e.js';

/** What the fake provider says when a turn uses the calculator tool (see `scriptToolTurn`). */
export const TOOL_ANSWER = 'Four.';
/** The model name a deployment answers to; any other is a 400. */
export const MODEL = 'assistant-agent';

export interface CompatBed {
  e: E2E;
  /** An active deployment. */
  id: string;
  /** A deployment that was active and is now stopped: chat answers 409 ASSISTANT_NOT_READY. */
  stoppedId: string;
  /** `<control plane>/api/v1/assistants/<id>`: the base URL OpenAI-compatible clients take. */
  base: string;
  stoppedBase: string;
  /** The next turn calls the calculator (the agent host emits `assistant.tool.progress`), then answers. */
  scriptToolTurn(): void;
  /** The agent really ran the tool: the provider's last call carries the tool's result. */
  assertToolRan(): void;
  /** The contents of the messages the provider saw on its last call (history included). */
  lastUpstreamContents(): string[];
  /**
   * Counts the chat requests the control plane received for one deployment since `mark()`: how many
   * times a client really called (retries included), read from its request log lines.
   */
  chatCallCounter(deploymentId: string): { mark(): void; count(): number };
  close(): Promise<void>;
}

/**
 * The bed of one test file: started before its tests (then `ready` builds the file's client on it)
 * and closed after them.
 */
export function setUpCompatBed(ready: (bed: CompatBed) => void | Promise<void>): void {
  let bed: CompatBed | undefined;
  before(async () => {
    bed = await startCompatBed();
    await ready(bed);
  });
  after(async () => bed?.close());
}

let bots = 0;
function botToken(): string {
  bots++;
  return `72100000${String(bots).padStart(2, '0')}:AAclientCompatibilityFakeBotToken_${process.pid}_${bots}`;
}

async function startCompatBed(): Promise<CompatBed> {
  const e = await startE2E();
  try {
    const [active, stopped] = [botToken(), botToken()];
    e.tg.addBot(active);
    e.tg.addBot(stopped);
    const id = await e.activate(active);
    const stoppedId = await e.activate(stopped);
    assert.equal((await e.waitForStatus(id, ['active', 'failed'])).status, 'active');
    assert.equal((await e.waitForStatus(stoppedId, ['active', 'failed'])).status, 'active');
    const res = await e.api('POST', `/api/v1/assistants/${stoppedId}/stop`);
    assert.equal(res.status, 200, res.text);
    const assistants = `${e.url}/api/v1/assistants`;
    return {
      e,
      id,
      stoppedId,
      base: `${assistants}/${id}`,
      stoppedBase: `${assistants}/${stoppedId}`,
      scriptToolTurn: () => scriptToolTurn(e),
      assertToolRan: () => assertToolRan(e),
      lastUpstreamContents: () => lastUpstreamContents(e),
      chatCallCounter: (deploymentId) => chatCallCounter(e, deploymentId),
      close: () => e.close(),
    };
  } catch (err) {
    await e.close();
    throw err;
  }
}

function scriptToolTurn(e: E2E): void {
  e.provider.queue.push(
    { toolCalls: [{ name: 'calculator', arguments: { expression: '2+2' } }] },
    { content: TOOL_ANSWER },
  );
}

function assertToolRan(e: E2E): void {
  const messages: Array<{ role: string; content: unknown }> = e.provider.requests.at(-1)!.body.messages;
  const result = messages.find((m) => m.role === 'tool');
  assert.ok(result, 'the model saw no tool result');
  assert.match(String(result.content), /\b4\b/);
}

function lastUpstreamContents(e: E2E): string[] {
  return e.provider.requests.at(-1)!.body.messages.map((m: { content: unknown }) => String(m.content));
}

function chatCallCounter(e: E2E, deploymentId: string) {
  const path = `/api/v1/assistants/${deploymentId}/chat/completions`;
  let from = e.logs.length;
  return {
    mark() {
      from = e.logs.length;
    },
    count() {
      return e.logs.slice(from).filter((l) => l.includes('"incoming request"') && l.includes(path)).length;
    },
  };
}

/** A session id of its own for each test, so histories never mix. */
export function sessionId(label: string): string {
  return `compat-${label}-${process.pid}-${Date.now()}`;
}

/** A key of the right shape that the control plane does not know. */
export const WRONG_KEY = 'berth_ThisKeyHasTheRightShapeButNobodyOwnsIt00';
