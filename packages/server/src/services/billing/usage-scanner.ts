// Finds the provider's `usage` object in a reply while its bytes pass through untouched: in an SSE
// stream it is on the final chunk (only `data:` lines that mention "usage" are parsed); in a JSON
// reply it is a top-level field (the body is kept up to a bound to read it at the end).
import type { ReportedUsage } from './pricing.js';

const JSON_LIMIT = 4 * 1024 * 1024;

export class UsageScanner {
  usage: ReportedUsage | undefined;
  /** Bytes seen, for an estimate when a stream breaks off before its usage. */
  bytes = 0;
  private readonly decoder = new TextDecoder();
  private tail = '';
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
    const text = this.tail + this.decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
      this.line(text.slice(start, nl));
      start = nl + 1;
    }
    this.tail = text.slice(start);
  }

  end(): ReportedUsage | undefined {
    if (this.sse) {
      if (this.tail) this.line(this.tail);
    } else if (this.json) {
      try {
        const body = JSON.parse(Buffer.concat(this.json).toString('utf8'));
        if (body?.usage && typeof body.usage === 'object') this.usage = body.usage;
      } catch {
        /* not JSON: nothing to read */
      }
    }
    return this.usage;
  }

  private line(line: string) {
    if (!line.startsWith('data:') || !line.includes('"usage"')) return;
    try {
      const ev = JSON.parse(line.slice(5));
      if (ev?.usage && typeof ev.usage === 'object') this.usage = ev.usage;
    } catch {
      /* not JSON */
    }
  }
}
