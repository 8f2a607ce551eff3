// Finds the provider's `usage` object in a reply while its bytes pass through untouched: in an SSE
// stream it is on the final chunk (only `data:` lines that mention "usage" are parsed); in a JSON
// reply it is a top-level field (the body is kept up to a bound to read it at the end).
// Lines are cut on the bytes ('\n' never occurs inside a UTF-8 character) and only the few that
// qualify are decoded: every open stream holds a scanner, so it keeps no decoder and no text.
import type { ReportedUsage } from './pricing.js';

const JSON_LIMIT = 4 * 1024 * 1024;
const NL = 0x0a;
const DATA = Buffer.from('data:');
const USAGE = Buffer.from('"usage"');

export class UsageScanner {
  usage: ReportedUsage | undefined;
  /** Bytes seen, for an estimate when a stream breaks off before its usage. */
  bytes = 0;
  /** The unfinished last line of an SSE stream, as bytes. */
  private tail: Buffer | undefined;
  private json: Buffer[] | undefined;
  private jsonBytes = 0;

  constructor(private readonly sse: boolean) {
    if (!sse) this.json = [];
  }

  push(chunk: Buffer) {
    this.bytes += chunk.length;
    if (!this.sse) {
      if (this.json && this.jsonBytes + chunk.length <= JSON_LIMIT) {
        this.json.push(chunk);
        this.jsonBytes += chunk.length;
      } else this.json = undefined;
      return;
    }
    const bytes = this.tail ? Buffer.concat([this.tail, chunk]) : chunk;
    let start = 0;
    for (let nl = bytes.indexOf(NL); nl !== -1; nl = bytes.indexOf(NL, start)) {
      this.line(bytes, start, nl);
      start = nl + 1;
    }
    // Copied: a slice would keep the whole chunk alive while the stream waits for its next one.
    this.tail = start < bytes.length ? Buffer.from(bytes.subarray(start)) : undefined;
  }

  end(): ReportedUsage | undefined {
    if (this.sse) {
      if (this.tail) this.line(this.tail, 0, this.tail.length);
    } else if (this.json) {
      const bytes = this.json.length === 1 ? this.json[0]! : Buffer.concat(this.json);
      // Most replies of a worker without a provider's usage need no parse at all.
      if (bytes.indexOf(USAGE) === -1) return this.usage;
      try {
        const body = JSON.parse(bytes.toString('utf8'));
        if (body?.usage && typeof body.usage === 'object') this.usage = body.usage;
      } catch {
        /* not JSON: nothing to read */
      }
    }
    return this.usage;
  }

  private line(bytes: Buffer, start: number, end: number) {
    if (end - start < DATA.length || bytes.compare(DATA, 0, DATA.length, start, start + DATA.length) !== 0) return;
    if (bytes.subarray(start + DATA.length, end).indexOf(USAGE) === -1) return;
    try {
      const ev = JSON.parse(bytes.toString('utf8', start + DATA.length, end));
      if (ev?.usage && typeof ev.usage === 'object') this.usage = ev.usage;
    } catch {
      /* not JSON */
    }
  }
}
