// Many chats streaming at once on one provider (issue 64: "1,000 concurrent chats on one provider
// add ≤ 100 ms p50 over 100"). Each chat is a client in a loop (ask, read the whole stream, ask
// again) through the agent's own model client, so the calls share one connection pool per
// provider origin exactly as an agent host's do; the audit's 27 s wait came from that pool.
import { OpenAiCompatibleProvider } from '@berth/agent';
import { percentile } from './load.js';
import { SLOW_ANSWER_MS, SLOW_PROMPT } from './slow-answer.js';

export interface StreamsResult {
  chats: number;
  /** Calls that started inside the measured window (every chat started, none yet stopping). */
  calls: number;
  errors: number;
  firstTextP50: number;
  firstTextP99: number;
  wholeP50: number;
  wholeP99: number;
  /** Calls in flight, sampled every 100 ms in the measured window: the median. */
  openMedian: number;
}

export async function concurrentStreams(o: {
  baseUrl: string;
  apiKey: string;
  model: string;
  chats: number;
  /** The measured window, after the chats have started one by one over one answer's length. */
  seconds: number;
}): Promise<StreamsResult> {
  const provider = new OpenAiCompatibleProvider({ provider: 'bench', baseUrl: o.baseUrl, apiKey: o.apiKey });
  const body = { model: o.model, messages: [{ role: 'user', content: SLOW_PROMPT }], max_tokens: 64 };
  // Starts spread over one answer's length, so calls arrive at a steady rate rather than in one burst;
  // and the chats go on asking, unmeasured, for one answer's length after the window, so the last
  // calls measured run beside as many others as the first did.
  const start = performance.now();
  const from = start + SLOW_ANSWER_MS;
  const end = from + o.seconds * 1000;
  const stop = end + SLOW_ANSWER_MS;
  const measured = (t0: number) => t0 >= from && t0 < end;
  const first: number[] = [];
  const whole: number[] = [];
  const opens: number[] = [];
  let open = 0;
  let errors = 0;
  const sampler = setInterval(() => {
    const now = performance.now();
    if (now >= from && now < end) opens.push(open);
  }, 100);
  await Promise.all(
    Array.from({ length: o.chats }, async (_, i) => {
      await new Promise((ok) => setTimeout(ok, (SLOW_ANSWER_MS * i) / o.chats));
      while (performance.now() < stop) {
        const t0 = performance.now();
        let firstAt: number | undefined;
        open++;
        try {
          for await (const c of provider.stream(body, AbortSignal.timeout(30_000)))
            if (c.content && firstAt === undefined) firstAt = performance.now();
          if (!measured(t0)) continue;
          if (firstAt === undefined) errors++;
          else {
            first.push(firstAt - t0);
            whole.push(performance.now() - t0);
          }
        } catch {
          if (measured(t0)) errors++;
        } finally {
          open--;
        }
      }
    }),
  );
  clearInterval(sampler);
  provider.close();
  // NaN when every call failed: no figure, rather than a p50 of the calls that happened to answer.
  const pct = (xs: number[], p: number) => (xs.length ? percentile(xs, p) : Number.NaN);
  return {
    chats: o.chats,
    calls: whole.length + errors,
    errors,
    firstTextP50: pct(first, 50),
    firstTextP99: pct(first, 99),
    wholeP50: pct(whole, 50),
    wholeP99: pct(whole, 99),
    openMedian: pct(opens, 50),
  };
}
