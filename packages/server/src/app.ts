// Builds the Fastify application from ready-made parts. No environment access here.
import { billingRoutes } from './payments/billing-routes.js';
import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
} from 'fastify';
import type { AuthMode } from './platform/http/auth.js';
import type { Logger } from 'pino';
import { cameInPublicly } from './platform/http/gateway-listener.js';
import { targetPath } from './platform/http/request-target.js';
import { endUnusedConnectionsOnClose } from './platform/http/unused-connections.js';
import { AppError } from './platform/errors/app-error.js';
import { installErrorHandler, sendError } from './platform/http/error-handler.js';
import cookie from '@fastify/cookie';
import { identify, identifyFromCache } from './accounts/identify.js';
import { callbackUrlKeyword } from './platform/http/ajv-callback-url.js';
import { telegramTextFormat } from './platform/http/ajv-telegram-text.js';
import { timeZoneFormat } from './platform/http/ajv-time-zone.js';
import { buildValidator } from './platform/http/validators.js';
import { Compilations } from './platform/http/lazy-compile.js';
import { buildSerializer } from './platform/http/serializers.js';
import { registerOpenApi } from './platform/http/openapi.js';
import { DebugRequestLogs } from './platform/http/request-logs.js';
import { lazyChildren } from './platform/http/request-logger.js';
import type { Services } from './services.js';
import { assistantRoutes } from './deployments/routes/assistants.js';
import { settingsRoutes } from './settings/routes.js';
import { mcpRoutes } from './mcp/routes.js';
import { catalogRoutes } from './catalog/routes.js';
import { chatRoutes } from './chat/routes/chat.js';
import { responsesRoutes } from './chat/routes/responses.js';
import { installChatFastPath } from './chat/routes/chat-fast-path.js';
import { paymentRoutes } from './payments/routes.js';
import { ChatProxy } from './chat/proxy/chat-proxy.js';
import { ModelGateway } from './billing/gateway/model-gateway.js';
import {
  GATEWAY_PATH,
  gatewayRoutes,
  mediaOutRoutes,
  pairingNoticeRoutes,
  searchRoutes,
} from './billing/routes/gateway.js';
import { decidePairingAsWorker, pairingRequested } from './settings/pairing-requested.js';
import { SearchGateway } from './billing/gateway/search-gateway.js';
import { usageRoutes } from './billing/routes/usage.js';
import { firstStepsRoutes } from './deployments/routes/first-steps.js';
import { passwordResetRoutes } from './accounts/routes/password-reset.js';
import { apiSessionRoutes } from './chat/routes/api-sessions.js';
import { reminderRoutes } from './reminders/routes.js';
import { channelRoutes } from './channels/routes.js';
import { ingressRoutes } from './ingress/routes.js';
import { authRoutes } from './accounts/routes/auth.js';
import { keyRoutes } from './accounts/routes/keys.js';
import { organizationRoutes } from './accounts/routes/organizations.js';
import { organizationSecretRoutes } from './accounts/routes/organization-secret.js';
import { registerRateLimit } from './platform/http/rate-limit.js';
import { parseJsonBody } from './platform/http/json-body.js';
import { clientErrors, frameworkErrors, REQUEST_TIMEOUT_MS } from './platform/http/client-errors.js';
import { baseHeaders, privateHeaders } from './platform/http/security-headers.js';
import { isDashboardPage, registerDashboard, sendDashboardPage } from './platform/http/dashboard.js';
import type { Metrics } from './ops/metrics.js';
import { countRequests, metricsRoute } from './ops/metrics-routes.js';
import { type ReadinessDeps, readinessRoute } from './ops/readiness.js';
import { versionRoute } from './ops/version-route.js';

export interface AppOptions {
  services: Services;
  logger: Logger;
  apiEnabled: boolean;
  publicBaseUrl: string;
  /** Where WhatsApp credentials are checked when a channel is attached (channels/check-whatsapp.ts). */
  whatsappApiRoot?: string;
  /** Where Discord bot tokens are checked when a channel is attached (channels/check-discord.ts). */
  discordApiRoot?: string;
  upstreamTimeoutMs?: number;
  /** Time to receive a whole request; REQUEST_TIMEOUT_MS unless a test wants it short. */
  requestTimeoutMs?: number;
  /** Whose X-Forwarded-For is believed (config TRUST_PROXY); false: req.ip is the peer. */
  trustProxy?: false | number | string[];
  /** The built dashboard to serve at / (undefined: no dashboard, / is a 404). */
  dashboardDir?: string;
  /** Prometheus metrics and the bearer token that reads them (METRICS_TOKEN); absent: no /metrics. */
  metrics?: { metrics: Metrics; token: string };
  /** What GET /readyz checks (absent: no /readyz). */
  readiness?: ReadinessDeps;
  /** Whether workers are being restored (the reconciler's restoring pass): chat answers "not ready" meanwhile. */
  restoring?: () => boolean;
  /** The routes' validators and serializers not compiled yet (the runtime compiles them in the background). */
  compilations?: Compilations;
}

// The assistants API and its model catalog (the kill switch covers both).
const API_PREFIX = '/api/v1';
/** The account routes (docs/decisions/0019): each must declare its auth mode too. */
const ACCOUNT_PREFIXES = ['/api/auth', '/api/keys', '/api/organizations', '/api/invitations'];

/** A callback hook, not an async one: nothing to wait for. */
function absentBodyAsEmpty(req: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) {
  if (req.body === undefined) req.body = {};
  done();
}
const hooksOf = <T>(h: T | T[] | undefined): T[] => (h === undefined ? [] : Array.isArray(h) ? h : [h]);

function isAccountRoute(url: string): boolean {
  return ACCOUNT_PREFIXES.some((p) => url === p || url.startsWith(`${p}/`));
}

/** Whether a request target (origin or absolute form, percent-encoded or not) is under the API. */
function isUnderApi(target: string): boolean {
  let path: string;
  try {
    path = decodeURIComponent(new URL(target, 'http://berth.invalid').pathname).replace(/\/{2,}/g, '/');
  } catch {
    return target.includes('/api/');
  }
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

/** A hop count as the function Fastify takes (its types name no number): the nearest n hops are proxies. */
function proxyTrust(t: false | number | string[] | undefined) {
  if (typeof t !== 'number') return t ?? false;
  return (_address: string, hop: number) => hop < t;
}

/** By the raw target, decoded and without dot segments, so no spelling of it slips past. */
function isGatewayPath(url: string): boolean {
  const path = targetPath(url)?.toLowerCase();
  if (path === undefined) return true;
  return path === GATEWAY_PATH || path.startsWith(`${GATEWAY_PATH}/`);
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { services: s } = opts;
  const requestTimeoutMs = opts.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const compilations = opts.compilations ?? new Compilations();
  const app = Fastify({
    loggerInstance: opts.logger,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    logController: new DebugRequestLogs(),
    childLoggerFactory: lazyChildren,
    bodyLimit: 1024 * 1024,
    // Behind the chart's Ingress every peer is the proxy: per-address limits need the client's address.
    trustProxy: proxyTrust(opts.trustProxy),
    // Slow-loris bodies are cut; a streamed answer is not (the timer stops once the request is in).
    requestTimeout: requestTimeoutMs,
    // Node reads these when the server is made (setting requestTimeout afterwards arms no timer).
    http: {
      requestTimeout: requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(30_000, requestTimeoutMs / 4)),
    },
    clientErrorHandler: clientErrors(requestTimeoutMs),
    frameworkErrors,
    // A request that arrives while the listener closes (on a kept-alive connection, or begun before)
    // is answered as any other, with Connection: close, instead of Fastify's 503 outside the error
    // envelope: the store stays open until the listener has closed (runtime.ts).
    return503OnClosing: false,
    ajv: {
      // Unknown keys must be rejected, not silently stripped; values must not be coerced (but for
      // the numbers of a query string: http/validators.ts).
      // validateSchema: checking each route schema against JSON Schema's meta-schema made Ajv compile
      // that meta-schema in each of its two instances at every start, the larger part of building
      // the app (docs/decisions/0027-scale.md); route-schemas.test.ts checks them instead.
      customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, validateSchema: false },
      plugins: [callbackUrlKeyword({ allowInsecure: s.callbackAllowInsecure }), telegramTextFormat, timeZoneFormat],
    },
    schemaController: {
      compilersFactory: {
        buildValidator: buildValidator(compilations),
        buildSerializer: buildSerializer(compilations),
      },
    },
  }) as unknown as FastifyInstance;

  installErrorHandler(app);
  const proxy = new ChatProxy(opts.upstreamTimeoutMs, opts.restoring);
  if (opts.metrics) countRequests(app, opts.metrics.metrics, proxy);
  await registerOpenApi(app, opts.publicBaseUrl);

  // A route under the API prefix that forgot its auth mode would be open and escape the kill switch.
  app.addHook('onRoute', (route) => {
    if ((isUnderApi(route.url) || isAccountRoute(route.url)) && !route.config?.auth)
      throw new Error(`route ${route.method} ${route.url} declares no auth mode`);
    // A body-less POST (stop, redeploy) is fine; an absent body counts as {}. Attached only to the
    // routes Fastify validates a body for: a hook on every request would cost each of them a hook
    // runner (the chat route reads its raw body itself, chat.ts).
    if (route.schema?.body && !route.validatorCompiler)
      route.preValidation = [absentBodyAsEmpty, ...hooksOf(route.preValidation)];
  });
  // Decided by the route the router matched, never by the raw URL: a percent-encoded or
  // absolute-form request target names the same route but does not start with the prefix.
  // A callback hook: it finishes without a promise when the caller is known from memory (a cached
  // key, a public route), and waits on identify() only for a store read (docs/decisions/0027-scale.md).
  app.addHook('onRequest', (req, reply, done) => {
    let mode: AuthMode | undefined;
    // done() is called outside the try: what runs after this hook must not be caught here and
    // answered with a second done(err).
    let known: boolean;
    try {
      reply.header('x-request-id', req.id);
      baseHeaders(reply);
      // The model gateway answers only on its own listener (gateway-listener.ts).
      if (isGatewayPath(req.url) && cameInPublicly(req.raw))
        throw new AppError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`);
      mode = req.routeOptions.config?.auth;
      if (!mode) known = true;
      else {
        // Public account routes too: sign-in and sign-up answer a CSRF token.
        privateHeaders(reply);
        // The kill switch covers the assistants API; accounts stay reachable (the matched route's pattern decides).
        if (!opts.apiEnabled && isUnderApi(req.routeOptions.url ?? ''))
          throw new AppError('API_DISABLED', 'The assistants API is disabled on this server.');
        known = identifyFromCache(s, req, mode);
      }
    } catch (err) {
      return done(err as Error);
    }
    if (known || !mode) return done();
    identify(s, req, mode).then(() => done(), done);
  });
  // Route-level hooks run after the app-wide one above: the rate limit counts authenticated keys.
  const count = registerRateLimit(app, {
    perMinute: s.limits.rateLimitPerMinute,
    repo: s.limits.rate,
    now: () => s.now().getTime(),
  });

  // A body-less POST (stop, redeploy) is fine; an empty JSON body counts as {}.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseJsonBody(body as string);
    } catch (err) {
      return done(err as AppError, undefined);
    }
    done(null, parsed);
  });

  if (opts.dashboardDir) await registerDashboard(app, opts.dashboardDir);
  app.setNotFoundHandler((req, reply) => {
    if (opts.dashboardDir && isDashboardPage(req)) return sendDashboardPage(reply);
    if (!opts.apiEnabled && isUnderApi(req.url)) {
      return sendError(reply, new AppError('API_DISABLED', 'The assistants API is disabled on this server.'));
    }
    return sendError(reply, new AppError('NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`));
  });

  assistantRoutes(app, s);
  settingsRoutes(app, s);
  mcpRoutes(app, s);
  catalogRoutes(app, s);
  usageRoutes(app, s);
  firstStepsRoutes(app, s);
  billingRoutes(app, s);
  passwordResetRoutes(app, s);
  apiSessionRoutes(app, s);
  reminderRoutes(app, s);
  channelRoutes(app, s, {
    publicBaseUrl: opts.publicBaseUrl,
    whatsappApiRoot: opts.whatsappApiRoot,
    discordApiRoot: opts.discordApiRoot,
  });
  // The cookie plugin only around the routes that set the session cookie: its onSend hook would
  // otherwise run on every reply, a hook runner per chat (docs/decisions/0027-scale.md, round 10).
  // No parsing hook: identify() parses the cookie header when a request has no API key.
  await app.register(async (scope) => {
    await scope.register(cookie, { hook: false });
    authRoutes(scope, s);
  });
  keyRoutes(app, s);
  organizationRoutes(app, s);
  organizationSecretRoutes(app, s);
  await app.register(async (scope) => {
    await chatRoutes(scope, s, proxy);
    responsesRoutes(scope, s, proxy);
  });
  // The payment provider owns its pages and webhooks: only the configured one is reachable.
  await app.register(async (scope) => paymentRoutes(scope, s));
  // Webhooks of the channels' platforms: their own raw-body parser (ingress/routes.ts).
  await app.register(async (scope) => ingressRoutes(scope, s));
  app.get('/api/openapi', { schema: { hide: true } }, async () => app.swagger());
  app.get('/healthz', { schema: { hide: true } }, async () => ({ ok: true }));
  if (opts.readiness) readinessRoute(app, opts.readiness);
  versionRoute(app);
  if (opts.metrics) metricsRoute(app, opts.metrics.metrics, opts.metrics.token);
  app.addHook('onClose', async () => proxy.close());
  const gateway = new ModelGateway(s, opts.upstreamTimeoutMs ?? 180_000);
  await app.register(async (scope) => gatewayRoutes(scope, gateway));
  await app.register(async (scope) => mediaOutRoutes(scope, gateway));
  const search = new SearchGateway(s, s.search?.provider, s.search?.priceUsd ?? 0, s.search?.timeoutMs);
  await app.register(async (scope) => searchRoutes(scope, search));
  await app.register(async (scope) =>
    pairingNoticeRoutes(
      scope,
      (auth, body) => pairingRequested(s, auth, body),
      (auth, code, decision) => decidePairingAsWorker(s, auth, code, decision),
    ),
  );
  app.addHook('onClose', async () => gateway.close());
  // The chat route's plain case ahead of Fastify's router and hooks (chat/routes/chat-fast-path.ts).
  // With the API switched off every chat is Fastify's, which answers API_DISABLED.
  if (opts.apiEnabled) {
    const fast = installChatFastPath(app.server, s, proxy, {
      logger: opts.logger,
      count,
      metrics: opts.metrics?.metrics,
    });
    app.addHook('preClose', (done) => {
      fast.close();
      done();
    });
  }
  endUnusedConnectionsOnClose(app);
  return app;
}
