// Worker thread that turns HTML into text for the web tool. html-to-text parses with htmlparser2
// (one linear pass), unlike the regexes it replaced.
import { parentPort } from 'node:worker_threads';
import { convert, type HtmlToTextOptions } from 'html-to-text';

const options: HtmlToTextOptions = {
  wordwrap: false,
  preserveNewlines: false,
  decodeEntities: true,
  limits: { maxInputLength: 2 * 1024 * 1024, maxDepth: 200, maxChildNodes: 20_000, ellipsis: ' …' },
  selectors: [
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'img', format: 'skip' },
    { selector: 'script', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'noscript', format: 'skip' },
    { selector: 'svg', format: 'skip' },
    { selector: 'head', format: 'skip' },
    { selector: 'h1', options: { uppercase: false } },
    { selector: 'h2', options: { uppercase: false } },
    { selector: 'h3', options: { uppercase: false } },
    { selector: 'h4', options: { uppercase: false } },
    { selector: 'h5', options: { uppercase: false } },
    { selector: 'h6', options: { uppercase: false } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
  ],
};

// The title lives in <head>, which is skipped; pick it out with a bounded, non-backtracking scan.
function titleOf(html: string): string {
  const open = html.search(/<title[\s>]/i);
  if (open < 0) return '';
  const start = html.indexOf('>', open);
  const end = html.toLowerCase().indexOf('</title', start);
  if (start < 0 || end < 0 || end - start > 2000) return '';
  return convert(html.slice(start + 1, end), { wordwrap: false }).trim();
}

const port = parentPort!;
port.on('message', ({ id, html }: { id: number; html: string }) => {
  try {
    const title = titleOf(html);
    const body = convert(html, options)
      .replace(/[ \t\f\v]+/g, ' ')
      .replace(/ ?\n[\s]*/g, '\n')
      .trim();
    port.postMessage({ id, text: title ? `${title}\n\n${body}` : body });
  } catch (err) {
    port.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});

// Loaded: the pool starts a job's deadline from here (threads/thread-pool.ts).
port.postMessage({ ready: true });
