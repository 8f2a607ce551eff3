// One authenticated JSON call over real HTTP (undici), for tests that run the server as a process.
import { request } from 'undici';

export interface ApiAnswer {
  status: number;
  json: any;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export async function callApi(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiAnswer> {
  const res = await request(`${base}${path}`, {
    method: method as 'GET',
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.body.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text, headers: res.headers };
}
