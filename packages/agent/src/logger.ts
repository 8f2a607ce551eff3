import pino, { type Logger } from 'pino';

/** Secrets never reach a log line: configs are not logged, and these paths are censored anyway. */
export function agentLogger(level: string, stream?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      redact: {
        paths: ['req.headers.authorization', '*.apiKey', '*.botToken', '*.gatewayToken'],
        censor: '[redacted]',
      },
    },
    stream ?? process.stdout,
  );
}
