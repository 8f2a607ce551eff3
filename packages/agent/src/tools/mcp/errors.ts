// What went wrong with an MCP server, in words for the owner (statusMessage) and the model (a tool
// error). Never the headers: messages are built from codes and our own sentences.
import { BlockedAddressError } from '@berth/contracts/net';
import { BlockedUrlError, ResponseTooLargeError } from './guarded-fetch.js';

export function describeMcpError(err: unknown): string {
  const chain: unknown[] = [];
  for (let e = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  const found = <T>(type: abstract new (...a: never[]) => T) => chain.find((e) => e instanceof type) as T | undefined;
  const blocked = found(BlockedAddressError);
  if (blocked) return `refused: ${blocked.message} (only public addresses can be used)`;
  const url = found(BlockedUrlError);
  if (url) return `refused: ${url.message}`;
  if (found(ResponseTooLargeError)) return new ResponseTooLargeError(4 * 1024 * 1024).message;
  const code = (err as { code?: unknown }).code;
  const message = String((err as Error)?.message ?? err);
  if (code === -32001 || /timed out/i.test(message)) return 'the server did not answer in time';
  if (/protocol version/i.test(message)) return 'the server speaks a protocol version Berth does not support';
  if (typeof code === 'number' && code >= 400 && code < 600) return `the server answered HTTP ${code}`;
  // The SDK's own words, cut short: a server's text may follow them.
  return message.replace(/\s+/g, ' ').slice(0, 200);
}
