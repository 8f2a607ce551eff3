import { Writable } from 'node:stream';
import { createLogger } from '../../src/index.js';

/** A control-plane logger whose lines tests can read (to prove, for one, that no secret is logged). */
export function capturingLogger(level: string) {
  const lines: string[] = [];
  const logger = createLogger(
    level,
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    }),
  );
  return { lines, logger };
}
