// Relays the router's answer to the worker as undici reads it: one handler object given to
// undici's dispatch(), writing each piece straight into the worker's response (no Readable body,
// for-await loop or AbortController per call). Writes of one moment go out together: the status
// line, a whole short answer and its end leave in one write instead of three. The socket is corked,
// not the response: Node 22.23's response cork wrote the chunked end ahead of the pieces it still
// held, and the worker read an answer cut after its first piece (decision 0031, "Twelfth session").
import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { retryHeadersOf } from '@berth/contracts/errors';
import { UsageScanner } from '../usage-scanner.js';
import { PassThrough } from '../../chat/index.js';

const PASS_HEADERS = ['content-type', 'cache-control', 'retry-after'];

const WORKER_GONE = new Error('the worker went away');

export type RelayOutcome =
  /** The router could not be reached or failed before answering: nothing was written. */
  | { kind: 'unreachable'; error: Error }
  /** The worker left before the answer began: nothing was written, the router call is cancelled. */
  | { kind: 'gone' }
  /** The answer was relayed, whole or until it broke off; a 2xx answer was scanned. */
  | { kind: 'relayed'; ok: boolean; scanner: UsageScanner };

export class Relay extends PassThrough {
  private started = false;
  private corked: Socket | undefined;
  private ok = false;
  private scanner: UsageScanner | undefined;

  constructor(
    out: ServerResponse,
    private readonly done: (o: RelayOutcome) => void,
  ) {
    // A worker that goes away cancels the router call.
    super(out, WORKER_GONE);
  }

  private readonly uncork = () => {
    const socket = this.corked;
    this.corked = undefined;
    socket?.uncork();
  };

  /** Holds writes until the end of this tick, so what undici delivers together leaves together. */
  private batch() {
    const socket = this.out.socket;
    if (this.corked || !socket) return;
    this.corked = socket;
    socket.cork();
    process.nextTick(this.uncork);
  }

  protected start(status: number, headers: Dispatcher.ResponseData['headers']) {
    this.started = true;
    this.ok = status >= 200 && status < 300;
    const type = headers['content-type'];
    this.scanner = new UsageScanner(typeof type === 'string' && type.startsWith('text/event-stream'));
    const out: Record<string, string> = { 'x-accel-buffering': 'no' };
    for (const name of PASS_HEADERS) {
      const v = headers[name];
      if (typeof v === 'string') out[name] = v;
    }
    // The router's rate limit reaches the agent whole, which relays it to an API client.
    if (status === 429) Object.assign(out, retryHeadersOf(headers));
    this.batch();
    this.out.writeHead(status, out);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (this.ok) this.scanner!.push(chunk);
    this.batch();
    this.pass(controller, chunk);
  }

  onResponseEnd() {
    this.batch();
    this.out.end();
    this.finish({ kind: 'relayed', ok: this.ok, scanner: this.scanner! });
  }

  onResponseError(_c: Dispatcher.DispatchController, error: Error) {
    if (!this.started) {
      this.finish(this.gone ? { kind: 'gone' } : { kind: 'unreachable', error });
      return;
    }
    // Broke off mid-answer: the worker sees its connection fail, as from the router itself.
    if (!this.out.destroyed) this.out.destroy();
    this.finish({ kind: 'relayed', ok: this.ok, scanner: this.scanner! });
  }

  private finish(o: RelayOutcome) {
    this.release();
    this.done(o);
  }
}
