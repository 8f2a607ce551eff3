// send_file (DESIGN §9.5): a text file the model wrote (CSV, Markdown, JSON, ...; at most 1 MB)
// sent to the user beside the answer (Telegram: sendDocument). Costs no provider call; the name is
// checked so that what arrives is a plain file with the extension its content claims.
import { ToolFailure, type Tool } from '../tool.js';

export const FILE_MAX_BYTES = 1024 * 1024;
/** Files one answer may carry. */
export const FILES_PER_TURN = 3;

const TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  md: 'text/markdown',
  txt: 'text/plain',
  json: 'application/json',
  xml: 'application/xml',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  html: 'text/html',
  ics: 'text/calendar',
  log: 'text/plain',
};

const NAME = /^[\p{L}\p{N}_][\p{L}\p{N} _.()-]{0,95}\.([a-z]{2,4})$/u;

export const sendFileTool: Tool = {
  name: 'send_file',
  emoji: '📎',
  description: `Send the user a text file you wrote (CSV, TSV, Markdown, JSON, XML, YAML, HTML, iCalendar or plain text; at most 1 MB) with your answer. Use it when the user asks for a file, a download, a spreadsheet or an export.`,
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', description: `File name with its extension (${Object.keys(TYPES).join(', ')})` },
      content: { type: 'string', description: 'The whole content of the file' },
    },
    required: ['name', 'content'],
    additionalProperties: false,
  },
  label: (args) => `Preparing ${typeof args.name === 'string' ? args.name.slice(0, 60) : 'a file'}`,
  async run(args, _signal, ctx) {
    const name = typeof args.name === 'string' ? args.name.trim() : '';
    const ext = NAME.exec(name)?.[1];
    const mimeType = ext ? TYPES[ext] : undefined;
    if (!mimeType)
      throw new ToolFailure(
        `Give "name" as a plain file name with one of these extensions: ${Object.keys(TYPES).join(', ')} (letters, digits, spaces, _ . ( ) -).`,
      );
    if (typeof args.content !== 'string' || !args.content.trim()) throw new ToolFailure('Give the file\'s "content".');
    const bytes = Buffer.from(args.content, 'utf8');
    if (bytes.length > FILE_MAX_BYTES)
      throw new ToolFailure(`The file is ${bytes.length} bytes; at most ${FILE_MAX_BYTES} (1 MB) can be sent.`);
    if (!ctx?.attach) throw new ToolFailure('Files cannot be sent here; put the content in your answer instead.');
    if ((ctx.attached?.('document') ?? 0) >= FILES_PER_TURN)
      throw new ToolFailure(`At most ${FILES_PER_TURN} files per answer; put the rest in one file or a new answer.`);
    ctx.attach({ kind: 'document', name, mimeType, bytes: new Uint8Array(bytes) });
    return JSON.stringify({
      ok: true,
      note: `${name} is sent to the user with your answer; do not repeat its content.`,
    });
  },
};
