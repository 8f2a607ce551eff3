// Fastify gives every request a child logger bound to its id. Making one costs on every request
// (pino serialises the bindings and builds the level methods; about 2 % of a read's CPU and 1 KB
// per open stream), and at the default level most requests never write a line. This child is
// made on the first line a request actually writes, with the same bindings and options.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level } from 'pino';

/** A pino logger as Fastify hands it to the factory. */
type Parent = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

const isPino = (l: FastifyBaseLogger): l is Parent => typeof (l as Partial<Parent>).isLevelEnabled === 'function';

export class LazyRequestLogger implements FastifyBaseLogger {
  private real: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: Parent,
    private readonly bindings: Bindings,
  ) {}

  private get log(): FastifyBaseLogger {
    this.real ??= this.parent.child(this.bindings);
    return this.real;
  }

  private write(level: Level, args: unknown[]) {
    // A line below the level is dropped without making the child.
    if (this.real || this.parent.isLevelEnabled(level)) Reflect.apply(this.log[level], this.log, args);
  }

  get level(): string {
    return this.real?.level ?? this.parent.level;
  }
  set level(level: string) {
    this.log.level = level;
  }

  fatal(...args: unknown[]) {
    this.write('fatal', args);
  }
  error(...args: unknown[]) {
    this.write('error', args);
  }
  warn(...args: unknown[]) {
    this.write('warn', args);
  }
  info(...args: unknown[]) {
    this.write('info', args);
  }
  debug(...args: unknown[]) {
    this.write('debug', args);
  }
  trace(...args: unknown[]) {
    this.write('trace', args);
  }
  silent() {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.log.child(bindings, options);
  }
}

/**
 * Fastify's childLoggerFactory: lazy children; a route with its own level or serializers gets an
 * ordinary child at once.
 */
export function lazyChildren(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  opts: ChildLoggerOptions,
): FastifyBaseLogger {
  return isPino(logger) && !opts.level && !opts.serializers
    ? new LazyRequestLogger(logger, bindings)
    : logger.child(bindings, opts);
}
