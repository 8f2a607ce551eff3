// What the chat proxy and the model gateway share when they relay an upstream answer: undici calls
// one handler object (dispatch()) as the upstream answers, each piece is written into the client's
// response with backpressure (undici paused until the client drains), and a client that goes away
// cancels the upstream call (its socket is closed, so a worker's turn or a router call stops).
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';

export abstract class PassThrough implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  /** The client went away before its answer was written whole. */
  protected gone = false;

  constructor(
    protected readonly out: ServerResponse,
    private readonly cancelled: Error,
  ) {
    out.on('close', this.onClose);
  }

  private readonly onClose = () => {
    if (this.out.writableFinished) return;
    this.gone = true;
    this.controller?.abort(this.cancelled);
  };

  private readonly resume = () => this.controller?.resume();

  onRequestStart(controller: Dispatcher.DispatchController) {
    this.controller = controller;
    if (this.gone) controller.abort(this.cancelled);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    status: number,
    headers: Dispatcher.ResponseData['headers'],
  ) {
    // undici keeps the answer's raw headers on the controller (an array of about ten Buffers) for
    // as long as the call lasts; an SSE stream lasts minutes, and `headers` already holds them parsed.
    controller.rawHeaders = null;
    this.start(status, headers);
  }

  /** The upstream's status and headers have arrived (its body follows). */
  protected abstract start(status: number, headers: Dispatcher.ResponseData['headers']): void;

  /** Writes a piece of the answer; undici reads no more while the client's buffer is full. */
  protected pass(controller: Dispatcher.DispatchController, chunk: Buffer) {
    if (!this.out.write(chunk)) {
      controller.pause();
      this.out.once('drain', this.resume);
    }
  }

  /** The call is over: a close of the client's side no longer concerns it. */
  protected release() {
    this.out.off('close', this.onClose);
  }
}
