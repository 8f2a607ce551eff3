// A status line on stderr for steps that may take a moment; a spinner when a person is watching.
export function status(text: string): () => void {
  if (!process.stderr.isTTY) {
    process.stderr.write(`${text}…\n`);
    return () => {};
  }
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const timer = setInterval(() => process.stderr.write(`\r${frames[i++ % frames.length]} ${text}`), 80);
  return () => {
    clearInterval(timer);
    process.stderr.write(`\r✓ ${text}\n`);
  };
}
