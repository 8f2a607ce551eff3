// Raw HTTP/1.1 over a socket: request targets and bytes that an HTTP client library would not send.
import { connect } from 'node:net';

/** Sends one raw HTTP/1.1 request and resolves with the status code and the parsed body. */
export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const payload = body === undefined ? '' : JSON.stringify(body);
  const head = [
    `${method} ${target} HTTP/1.1`,
    'Host: berth.test',
    'Connection: close',
    ...(payload ? ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`] : []),
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n');
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(`${head}\r\n\r\n${payload}`));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      const raw = text.slice(text.indexOf('\r\n\r\n') + 4);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = raw;
      }
      resolve({ status, body: parsed });
    });
  });
}

/** Request targets that name the same route as `path`. */
export function disguises(path: string): Array<[string, string]> {
  return [
    [
      'percent-encoded letter',
      path.replace(
        /^\/api\/(v1\/)?([a-z])/,
        (_m, v: string | undefined, c: string) => `/api/${v ?? ''}%${c.charCodeAt(0).toString(16)}`,
      ),
    ],
    ['percent-encoded first segment', path.replace('/api/', '/%61pi/')],
    ['absolute form', `http://berth.test${path}`],
    ['absolute form, other host', `http://evil.example:8080${path}`],
  ];
}
