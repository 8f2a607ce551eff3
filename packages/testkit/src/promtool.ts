// `promtool check metrics` over a scrape's text (Debian's prometheus package; .ci/run installs it).
import { spawnSync } from 'node:child_process';

/**
 * promtool's findings ('' when the text is clean), or undefined when promtool is not installed
 * (a developer machine; CI has it, so there the caller fails instead of skipping).
 */
export function promtoolFindings(text: string): string | undefined {
  if (spawnSync('promtool', ['--version']).error) {
    if (process.env.CI) throw new Error('promtool is not installed (CI installs it in .ci/run)');
    return undefined;
  }
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  const said = `${lint.stdout}${lint.stderr}`.trim();
  return lint.status === 0 ? said : said || `promtool exited with ${lint.status}`;
}
