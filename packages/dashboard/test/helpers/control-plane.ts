// The control plane (with its agent host and fakes) serving today's dashboard build on a free port.
import { startE2E, type E2E } from '../../../server/test/helpers/e2e.js';
import { buildDashboard, freePort } from './browser.js';

/** `env` adds control-plane env, given the port it will listen on. */
export async function startDashboard(env?: (port: number) => Record<string, string>): Promise<E2E> {
  const dir = await buildDashboard();
  const port = await freePort();
  return startE2E(
    { PORT: String(port), PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env?.(port) },
    { dashboardDir: dir },
  );
}
