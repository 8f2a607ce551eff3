import { ERROR_STATUS, type ErrorCode } from './codes.js';

/** The one error type. Its code decides the HTTP status through ERROR_STATUS. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    /** Response headers that belong to the error (Retry-After, x-should-retry, RateLimit-*). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const notFound = () => new AppError('NOT_FOUND', 'Deployment not found.');

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}
