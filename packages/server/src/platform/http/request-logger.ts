// Fastify gives every request a child logger bound to its id. Making one costs on every request
// (pino serialises the bindings and builds the level methods; about 2 % of a read's CPU and 1 KB
// per open stream), and at the default level most requests never write a line. This child is
// made on the first line a request actually writes, with the same bindings and options.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, Level } from 'pino';

/** A pino logger as Fastify hands it to the factory. */
type Parent = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

const LEVELS: readonly Level[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'];

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

  // One method a level, each only write(level): made once on the prototype, not per request.
  declare fatal: FastifyBaseLogger['fatal'];
  declare error: FastifyBaseLogger['error'];
  declare warn: FastifyBaseLogger['warn'];
  declare info: FastifyBaseLogger['info'];
  declare debug: FastifyBaseLogger['debug'];
  declare trace: FastifyBaseLogger['trace'];
  static {
    for (const level of LEVELS) {
      LazyRequestLogger.prototype[level] = function (this: LazyRequestLogger, ...args: unknown[]) {
        this.write(level, args);
      };
    }
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
