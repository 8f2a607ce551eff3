// Code a user writes with openapi-fetch over the `paths` openapi-typescript generates from the
// OpenAPI document: createClient<paths> with no media type chosen, `error` checked, then `data`
// read as the JSON answer. openapi.test.ts writes the generated ./schema.ts beside a copy of this
// file and type-checks both with tsc. (Excluded from the repository's own type-check: ./schema.js
// exists only in that directory.)
import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:3000', headers: { 'X-API-Key': 'berth_…' } });

export async function chat(deploymentId: string): Promise<string | null | undefined> {
  const { data, error } = await client.POST('/api/v1/assistants/{deploymentId}/chat/completions', {
    params: { path: { deploymentId } },
    body: { model: 'assistant-agent', messages: [{ role: 'user', content: 'hello' }] },
  });
  if (error) throw new Error(error.error.message);
  return data.choices[0]?.message.content;
}

export async function respond(deploymentId: string): Promise<string | undefined> {
  const { data, error } = await client.POST('/api/v1/assistants/{deploymentId}/responses', {
    params: { path: { deploymentId } },
    body: { model: 'assistant-agent', input: 'hello', instructions: 'Be brief.' },
  });
  if (error) throw new Error(error.error.message);
  return data.output[0]?.content[0]?.text;
}

export async function stored(deploymentId: string, responseId: string): Promise<number | undefined> {
  const { data } = await client.GET('/api/v1/assistants/{deploymentId}/responses/{responseId}', {
    params: { path: { deploymentId, responseId } },
  });
  return data?.usage?.total_tokens;
}
