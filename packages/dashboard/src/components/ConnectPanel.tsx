// How to use an active assistant from elsewhere: its base URL and model name, copyable snippets for
// curl, the openai SDKs (JavaScript and Python) and the Vercel AI SDK, over chat completions and
// the Responses API newer OpenAI clients default to (issue 65), and the bot's t.me link.
// Snippets read the key from BERTH_API_KEY: the page never prints a key.
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../api/client';
import { CopyButton } from './CopyButton';
import { ErrorNotice } from './ErrorNotice';

export function snippets(baseUrl: string): { id: string; title: string; code: string }[] {
  return [
    {
      id: 'curl',
      title: 'curl',
      code: `curl -s ${baseUrl}/chat/completions \\
  -H "Authorization: Bearer $BERTH_API_KEY" \\
  -H 'content-type: application/json' \\
  -d '{"model":"assistant-agent","messages":[{"role":"user","content":"Hello!"}]}'`,
    },
    {
      id: 'curl-responses',
      title: 'curl (Responses)',
      code: `curl -s ${baseUrl}/responses \\
  -H "Authorization: Bearer $BERTH_API_KEY" \\
  -H 'content-type: application/json' \\
  -d '{"model":"assistant-agent","input":"Hello!"}'`,
    },
    {
      id: 'openai-js',
      title: 'openai (JavaScript)',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: process.env.BERTH_API_KEY });
const reply = await client.chat.completions.create({
  model: 'assistant-agent',
  messages: [{ role: 'user', content: 'Hello!' }],
});
console.log(reply.choices[0].message.content);`,
    },
    {
      id: 'openai-js-responses',
      title: 'openai Responses (JavaScript)',
      code: `import OpenAI from 'openai';

const client = new OpenAI({ baseURL: '${baseUrl}', apiKey: process.env.BERTH_API_KEY });
const first = await client.responses.create({ model: 'assistant-agent', input: 'Hello!' });
console.log(first.output_text);
// The server keeps the conversation: send only the new turn.
const next = await client.responses.create({
  model: 'assistant-agent',
  input: 'And then?',
  previous_response_id: first.id,
});
console.log(next.output_text);`,
    },
    {
      id: 'openai-python',
      title: 'openai (Python)',
      code: `import os
from openai import OpenAI

client = OpenAI(base_url="${baseUrl}", api_key=os.environ["BERTH_API_KEY"])
reply = client.chat.completions.create(
    model="assistant-agent",
    messages=[{"role": "user", "content": "Hello!"}],
)
print(reply.choices[0].message.content)`,
    },
    {
      id: 'ai-sdk',
      title: 'Vercel AI SDK',
      code: `import { createOpenAI } from '@ai-sdk/openai';
import { generateText } from 'ai';

const berth = createOpenAI({ baseURL: '${baseUrl}', apiKey: process.env.BERTH_API_KEY });
// The Responses API (the provider's default); berth.chat('assistant-agent') for chat completions.
const { text } = await generateText({ model: berth('assistant-agent'), prompt: 'Hello!' });
console.log(text);`,
    },
  ];
}

export function ConnectPanel({ id }: { id: string }) {
  const query = useQuery({
    queryKey: ['connect', id],
    queryFn: () =>
      unwrap(api.GET('/api/v1/assistants/{deploymentId}/connect', { params: { path: { deploymentId: id } } })),
  });
  const [tab, setTab] = useState('curl');
  const c = query.data;
  return (
    <section aria-labelledby="connect-title" className="card connect">
      <h2 id="connect-title">Use it</h2>
      <ErrorNotice error={query.error} />
      {c && (
        <>
          <dl className="record">
            <dt>Base URL</dt>
            <dd className="mono break" data-testid="base-url">
              {c.baseUrl} <CopyButton value={c.baseUrl} label="Copy base URL" />
            </dd>
            <dt>Model</dt>
            <dd className="mono">{c.model}</dd>
            <dt>API key</dt>
            <dd>
              Any of your API keys (<a href="/keys">API keys</a>), as <code>BERTH_API_KEY</code> below.
            </dd>
            <dt>Telegram</dt>
            <dd>
              {c.botLink ? (
                <a href={c.botLink} rel="noreferrer noopener" target="_blank">
                  @{c.botUsername}
                </a>
              ) : (
                'The bot’s name shows once Telegram has accepted the token.'
              )}
            </dd>
          </dl>
          <div role="tablist" aria-label="Snippets" className="tabs">
            {snippets(c.baseUrl).map((s) => (
              <button
                key={s.id}
                type="button"
                role="tab"
                aria-selected={tab === s.id}
                aria-controls={`snippet-${s.id}`}
                className={tab === s.id ? '' : 'secondary'}
                onClick={() => setTab(s.id)}
              >
                {s.title}
              </button>
            ))}
          </div>
          {snippets(c.baseUrl)
            .filter((s) => s.id === tab)
            .map((s) => (
              <div key={s.id} id={`snippet-${s.id}`} role="tabpanel" aria-label={s.title}>
                <pre className="snippet" data-testid={`snippet-${s.id}`}>
                  <code>{s.code}</code>
                </pre>
                <CopyButton value={s.code} label={`Copy ${s.title}`} />
              </div>
            ))}
        </>
      )}
    </section>
  );
}
