// A worker that answers at once: the chat completions contract of an agent with no model behind
// it, so the benchmarks measure the proxy and nothing else. SSE answers trickle one chunk a second.
import { createServer } from 'node:http';
// testkit's http module alone: its index would load every fake into the measured process.
import { listen } from '@berth/testkit/http';
import { ready } from './processes.js';

const body = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 0,
  model: 'assistant-agent',
  choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
});
// What an agent's answer carries when its model reported usage (bench:proxy's "with usage" rows).
const withUsage = JSON.stringify({
  ...JSON.parse(body),
  usage: { prompt_tokens: 1000, completion_tokens: 2000, total_tokens: 3000 },
});

const server = createServer((req, res) => {
  let raw = '';
  req.on('data', (c) => {
    raw += c;
  });
  req.on('end', () => {
    if (raw.includes('"stream":true')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'assistant-agent', choices: [{ index: 0, delta: { content: 'tick ' }, finish_reason: null }] })}\n\n`;
      res.write(chunk);
      const t = setInterval(() => res.write(chunk), 1000);
      res.on('close', () => clearInterval(t));
      return;
    }
    const answer = raw.includes('with usage') ? withUsage : body;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
ready(`instant-worker listening on ${await listen(server)}`);
