// Minimal server-sent events reader: yields the data of each event (multi-line data joined).
export async function* readSse(body: AsyncIterable<Buffer | string>): AsyncGenerator<{ event?: string; data: string }> {
  let buffer = '';
  let data: string[] = [];
  let event: string | undefined;
  for await (const chunk of body) {
    buffer += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data.length) yield { event, data: data.join('\n') };
        data = [];
        event = undefined;
      } else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
  }
  if (data.length) yield { event, data: data.join('\n') };
}
