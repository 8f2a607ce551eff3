// The one SSE reader of Berth: bytes → events. Bytes are decoded with a streaming TextDecoder, so
// a multi-byte character split across network chunks stays whole ("Привет", not "��ривет"),
// and eventsource-parser does the framing (multi-line data, CR/LF/CRLF, comments, BOM).
import { createParser, type EventSourceMessage } from 'eventsource-parser';

export interface SseEvent {
  event?: string;
  data: string;
}

/** Yields each event of an SSE body as it completes; an unterminated last event is yielded too. */
export async function* readSse(body: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const ready: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => ready.push(e) });
  const drain = function* () {
    while (ready.length) {
      const e = ready.shift()!;
      yield e.event ? { event: e.event, data: e.data } : { data: e.data };
    }
  };
  for await (const chunk of body) {
    parser.feed(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
    yield* drain();
  }
  // A body that ends without the blank line still delivers its last event (lenient, like the
  // OpenAI SDKs: some providers end on "data: [DONE]\n").
  parser.feed(`${decoder.decode()}\n\n`);
  yield* drain();
}
