// Serves the built dashboard (packages/dashboard/dist) at / with a strict Content-Security-Policy.
// Client routes (/deployments/…, /keys, /invite/…) get index.html, but never a path the server
// owns: the API, checkout pages, the model gateway and the health check keep their own 404s.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';

/** No inline script or style, nothing from another origin, no framing. */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SERVER_PATHS = /^\/(?:api|checkout|gateway|healthz|readyz|metrics|webhooks)(?:[/?#]|$)/i;

/** The built dashboard shipped beside the server, or undefined when it was not built. */
export function builtDashboardDir(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve('@berth/dashboard/package.json');
    const dir = join(dirname(pkg), 'dist');
    return existsSync(join(dir, 'index.html')) ? dir : undefined;
  } catch {
    return undefined;
  }
}

function secure(reply: FastifyReply) {
  reply.header('content-security-policy', DASHBOARD_CSP);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
}

/** Whether a request that matched no route is a page of the dashboard (its index.html). */
export function isDashboardPage(req: FastifyRequest): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = req.url.split('?')[0]!;
  // The router decodes the path, so /%61pi/x and /api%2Fx are the API's too: a typo there must
  // get the API's JSON 404, not a 200 page. A path that does not decode is no page either.
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false;
  }
  if (SERVER_PATHS.test(decoded.replace(/\/{2,}/g, '/'))) return false;
  // A missing asset (/assets/x.js) is a 404, not the page: a stale tab should fail loudly.
  return !/\.[a-z0-9]+$/i.test(path);
}

export async function registerDashboard(app: FastifyInstance, dir: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/',
    wildcard: false,
    index: false,
    // Hashed asset names never change content; index.html must be re-read to see a new build.
    setHeaders: (reply, path) => {
      secure(reply);
      reply.header('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}

export function sendDashboardPage(reply: FastifyReply) {
  secure(reply);
  reply.header('cache-control', 'no-cache');
  return reply.sendFile('index.html');
}
