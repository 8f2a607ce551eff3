// A live progress line on stderr: spinner, elapsed time and the latest status when a person is
// watching a terminal; one plain line per change otherwise (logs and CI stay readable).
import { io } from '../io.js';
const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

export interface Progress {
  update(text: string): void;
  stop(finalLine: string): void;
}

export function startProgress(): Progress {
  const started = Date.now();
  const elapsed = () => `${Math.round((Date.now() - started) / 1000)}s`;
  let text = '';
  if (!io().stderr.isTTY) {
    return {
      update(next) {
        if (next !== text) io().stderr.write(`${next} (${elapsed()})\n`);
        text = next;
      },
      stop(finalLine) {
        io().stderr.write(`${finalLine} (${elapsed()})\n`);
      },
    };
  }
  let frame = 0;
  const draw = () => io().stderr.write(`\r\x1b[2K${FRAMES[frame++ % FRAMES.length]} ${text} ${elapsed()}`);
  const timer = setInterval(draw, 100);
  return {
    update(next) {
      text = next;
      draw();
    },
    stop(finalLine) {
      clearInterval(timer);
      io().stderr.write(`\r\x1b[2K${finalLine} (${elapsed()})\n`);
    },
  };
}
