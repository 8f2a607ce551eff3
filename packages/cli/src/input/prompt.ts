// Asking the person at the terminal, and reading what a script pipes in. Prompts go to stderr so
// stdout stays clean for --json; nothing here waits on a stdin that is not a terminal except
// readStdin, which ends when the pipe closes.
import { io } from '../io.js';
import { Writable } from 'node:stream';
import { createInterface } from 'node:readline/promises';

export const stdinIsTty = () => Boolean(io().stdin.isTTY);

function onInterrupt() {
  io().stderr.write('\n');
  process.exit(130);
}

/** Reads a secret on the terminal without echoing it. */
export async function askHidden(question: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _enc, done) => done() });
  // The interface puts the terminal in raw mode (no echo) as it is made: only then is the prompt
  // shown, so a key pasted the moment the prompt appears is never echoed on screen.
  const rl = createInterface({ input: io().stdin, output: muted, terminal: true });
  io().stderr.write(question);
  rl.on('SIGINT', onInterrupt);
  try {
    return (await rl.question('')).trim();
  } finally {
    rl.close();
    io().stderr.write('\n');
  }
}

/** Asks a yes/no question on the terminal; anything but y/yes is no. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: io().stdin, output: io().stderr, terminal: true });
  rl.on('SIGINT', onInterrupt);
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

const STDIN_LIMIT = 1024 * 1024;

/** Everything piped on stdin (empty when stdin is closed or /dev/null). */
export async function readStdin(): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of io().stdin as AsyncIterable<Buffer>) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > STDIN_LIMIT) throw new Error('stdin is larger than 1 MiB');
  }
  return text + decoder.decode();
}
