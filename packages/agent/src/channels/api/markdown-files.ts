// On the chat API a picture or file a tool made arrives in the answer itself (DESIGN §9.5), as
// Markdown with a data: URL: ![picture](data:image/png;base64,…) and [report.csv](data:text/csv;…).
// No store, no signing key and no expiry to manage, and every Markdown view shows it; the cost is
// the answer's size (decision 0033). History keeps only the model's words.
import type { OutFile } from '../../tools/tool.js';

const dataUrl = (f: OutFile) =>
  `data:${f.mimeType};base64,${Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength).toString('base64')}`;

/** The Markdown that follows the answer's words for its files; empty without any. */
export function filesMarkdown(files: OutFile[] | undefined): string {
  if (!files?.length) return '';
  const label = (s: string) => s.replace(/[[\]\\]/g, '');
  return files
    .map((f) =>
      f.kind === 'photo' ? `\n\n![${label(f.name)}](${dataUrl(f)})` : `\n\n[${label(f.name)}](${dataUrl(f)})`,
    )
    .join('');
}
