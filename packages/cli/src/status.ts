// A status line on stderr for steps that may take a moment; a spinner when a person is watching.
import { io } from './io.js';
export function status(text: string): () => void {
  if (!io().stderr.isTTY) {
    io().stderr.write(`${text}…\n`);
    return () => {};
  }
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let i = 0;
  const timer = setInterval(() => io().stderr.write(`\r${frames[i++ % frames.length]} ${text}`), 80);
  return () => {
    clearInterval(timer);
    io().stderr.write(`\r✓ ${text}\n`);
  };
}
