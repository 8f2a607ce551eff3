// berth chat <id>: one message (argument or stdin) or an interactive conversation. Answers stream
// to stdout as they arrive; tool progress (emoji + label) goes to stderr as it happens. With
// --json the turn is not streamed and the final completion object is printed.
import { io } from '../io.js';
import { createInterface } from 'node:readline/promises';
import { newSessionId, type BerthClient } from '../api/client.js';
import { BerthApiError } from '@berth/client';
import type { ToolProgress } from '../api/client.js';
import { UsageError } from '../config/env.js';
import { readStdin, stdinIsTty } from '../input/prompt.js';
import { EXIT } from '../output/exit-codes.js';
import { printJson } from '../output/print.js';
import { reportError } from '../output/report-error.js';
import { note, type Ctx } from './context.js';

export async function chatCommand(
  ctx: Ctx,
  id: string | undefined,
  words: string[],
  opts: { session?: string },
): Promise<number> {
  if (!id) throw new UsageError('berth chat needs the assistant id: berth chat <id> ["message"]');
  const client = ctx.client();
  let message = words.join(' ');
  if (!message && !stdinIsTty()) {
    message = (await readStdin()).trim();
    if (!message) throw new UsageError('berth chat got no message: pass it as an argument or pipe it on stdin');
  }
  if (message) {
    await turn(ctx, client, id, message, opts.session);
    return EXIT.ok;
  }
  return interactive(ctx, client, id, opts.session ?? newSessionId());
}

async function turn(ctx: Ctx, client: BerthClient, id: string, content: string, session: string | undefined) {
  const messages = [{ role: 'user' as const, content }];
  if (ctx.json) {
    printJson(await client.chat(id, messages, session));
    return;
  }
  let atLineStart = true;
  const text = await client.chatStream(
    id,
    messages,
    {
      onText(piece) {
        io().stdout.write(piece);
        atLineStart = piece.endsWith('\n');
      },
      onToolProgress(p: ToolProgress) {
        // Progress sits on its own line even when it interrupts an answer on the same terminal.
        if (!atLineStart && io().stdout.isTTY && io().stderr.isTTY) io().stdout.write('\n');
        atLineStart = true;
        io().stderr.write(`${p.emoji} ${p.label}\n`);
      },
    },
    session,
  );
  if (text && !atLineStart) io().stdout.write('\n');
}

async function interactive(ctx: Ctx, client: BerthClient, id: string, firstSession: string): Promise<number> {
  let session = firstSession;
  note(`Chatting with ${id} (session ${session}). /reset starts a new conversation; /exit or Ctrl-D leaves.`);
  const rl = createInterface({ input: io().stdin, output: io().stdout, terminal: true });
  rl.on('SIGINT', () => rl.close());
  rl.setPrompt('you> ');
  rl.prompt();
  for await (const raw of rl) {
    const line = raw.trim();
    if (line === '/exit' || line === '/quit') break;
    if (line === '/reset') {
      session = newSessionId();
      note(`New conversation (session ${session}).`);
    } else if (line) {
      try {
        await turn(ctx, client, id, line, session);
      } catch (err) {
        const code = reportError(err);
        // A refused key or a vanished server will not get better by typing more.
        if (!(err instanceof BerthApiError) || code === EXIT.auth) {
          rl.close();
          return code;
        }
      }
    }
    rl.prompt();
  }
  rl.close();
  return EXIT.ok;
}
