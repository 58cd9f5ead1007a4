// The HTTP API: a Hono route for each operation's binding (src/backend/routes.ts), one error
// body, auth first, Host/Origin checks against DNS rebinding, and body size limits. Other parts
// (MCP transports, the approval page) are handed in as mounts.
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import { zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ServiceError, invalidInput } from '../backend/errors.ts';
import type { Service } from '../backend/service.ts';
import { authenticate, type Principal } from '../backend/credentials.ts';
import type { CallerSpec, Operation } from '../backend/operation.ts';
import { recordRefusal, runAs } from '../backend/invoke.ts';
import { inputErrorMap } from '../backend/input-messages.ts';
import { checkJsonShape } from '../backend/json-shape.ts';
import { ROUTES, inputOf, type Route, type RouteRequest } from '../backend/routes.ts';
import { documented } from '../backend/api-doc.ts';
import { ErrorBody } from '../backend/operations/common.ts';
import { Buckets, clientOf, type Rate } from './limits.ts';

export const API_VERSION = '1.0.0';
/** Request body limits (docs/API.md): sealed envelopes, backups and row loads get more room. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const LARGE_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const LARGE_BODY_PATHS = [
  /^\/api\/v1\/links$/,
  /\/fabric\/send$/,
  /^\/v1\/recovery\/copy$/,
  /^\/api\/v1\/tables\/[^/]+\/rows$/,
];

type Env = {
  Variables: {
    principal: Principal;
    /** The operation a route runs, set once its caller is authenticated (for `onError`). */
    operation: Operation;
    /** The request's parameters and body as sent, gathered as they are read (for `onError`). */
    sent: Record<string, unknown>;
    /** The request's pieces, validated against the route's schemas. */
    request: RouteRequest;
  };
};

/** Adds routes of another part to the app (the MCP transports, the approval page). */
export type Mount = (app: Hono) => void;

export interface AppOptions {
  service: Service;
  /** Extra host names accepted in Host/Origin besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: string[];
  /**
   * Host names that reach only the share pages and their endpoints (`publicPaths`): the host of
   * SVC_PUBLIC_URL, where people outside this machine open links.
   */
  publicHosts?: string[];
  publicPaths?: RegExp;
  mounts?: Mount[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The one check of what is JSON (docs/API.md, Content type): the media type, before any parameters
 * and without the white space around it, is `application/json` or `application/<name>+json`, the
 * name in RFC 6838's restricted-name characters (letters, digits, `!#$&-^_.+`).
 */
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9!#$&^_.+-]+\+)?json$/;

function isJsonContentType(contentType: string): boolean {
  return JSON_MEDIA_TYPE.test(contentType.split(';')[0]!.trim().toLowerCase());
}

function hostnameOf(hostHeader: string): string {
  return hostHeader.startsWith('[')
    ? hostHeader.slice(0, hostHeader.indexOf(']') + 1)
    : hostHeader.split(':')[0]!;
}

/**
 * Whether `origin` is the very origin the request was sent to: the same scheme, host name and port
 * (the Host header read with the origin's scheme, so a default port matches its absence). A page on
 * another port of this machine is another origin, and a browser names it in `Origin`.
 */
function isOwnOrigin(origin: URL, hostHeader: string): boolean {
  try {
    return new URL(`${origin.protocol}//${hostHeader}`).host === origin.host;
  } catch {
    return false;
  }
}

/**
 * Refuses requests whose Host names a host we do not serve (DNS rebinding), and browser requests
 * from any origin but our own. Loopback is served over plain HTTP only; an extra host name may also
 * be reached over HTTPS, through a proxy that ends TLS and keeps the Host header.
 */
function hostGuard(
  allowed: Set<string>,
  publicHosts: Set<string> = new Set(),
  publicPaths?: RegExp,
): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host).toLowerCase();
    const publicOnly = !allowed.has(hostname) && publicHosts.has(hostname);
    if (publicOnly && !publicPaths?.test(c.req.path)) {
      throw new ServiceError('forbidden_host', `host \`${host}\` serves share links only`);
    }
    if (!allowed.has(hostname) && !publicOnly) {
      throw new ServiceError('forbidden_host', `host \`${host}\` is not served here; use http://127.0.0.1`);
    }
    const origin = c.req.header('origin');
    if (origin === 'null') {
      throw new ServiceError('forbidden_host', 'requests from an opaque origin are not accepted');
    }
    if (origin !== undefined) {
      let parsed: URL;
      try {
        parsed = new URL(origin);
      } catch {
        throw new ServiceError('forbidden_host', 'malformed Origin header');
      }
      const schemes = LOOPBACK_HOSTS.includes(hostname) ? ['http:'] : ['http:', 'https:'];
      if (!schemes.includes(parsed.protocol) || !isOwnOrigin(parsed, host)) {
        throw new ServiceError(
          'forbidden_host',
          `requests from origin \`${origin}\` are not accepted: only pages served by this server (${schemes.map((s) => `${s}//${host}`).join(' or ')}) may call it`,
        );
      }
    }
    await next();
  };
}

function limitFor(path: string): number {
  return LARGE_BODY_PATHS.some((p) => p.test(path)) ? LARGE_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

/** One piece of a request, parsed with the messages that say what each field takes. */
function parsePiece<T>(schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value, { error: inputErrorMap });
  if (!parsed.success) throw invalidInput(parsed.error);
  return parsed.data;
}

/**
 * The query as the route's schema sees it: each parameter it declares, once. A parameter given twice
 * is refused here, by name, rather than handed on as a list its schema would misread.
 */
function queryOf(c: Context<Env>, schema: z.ZodObject): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, values] of Object.entries(c.req.queries())) {
    if (!Object.hasOwn(schema.shape, name)) continue;
    if (values.length > 1) {
      const message = `query parameter \`${name}\` is given ${values.length} times: give it once`;
      throw new ServiceError('invalid_request', `invalid request: ${message}`, {
        issues: [{ path: name, message }],
      });
    }
    query[name] = values[0]!;
  }
  return query;
}

/** A request's JSON body: 415 unless sent as JSON (`isJsonContentType`), 400 unless it parses. */
async function jsonBodyOf(c: Context<Env>): Promise<unknown> {
  const contentType = c.req.header('content-type');
  if (contentType === undefined) {
    // No type and no body is validated as an empty body; a body without a type is not JSON.
    if ((await c.req.text()).length === 0) return {};
    throw unsupportedMediaType();
  }
  if (!isJsonContentType(contentType)) throw unsupportedMediaType();
  try {
    return await c.req.json();
  } catch {
    throw new ServiceError('invalid_json', 'request body is not valid JSON');
  }
}

/**
 * Validates a request against its route's schemas in the documented order (docs/API.md): query and
 * path parameters, then the content type, the JSON text, its shape (json-shape.ts) and the body
 * schema. What was sent is kept as it is read, so a refusal can record what was asked.
 */
function validated(r: Route): MiddlewareHandler<Env> {
  return async (c, next) => {
    const sent: Record<string, unknown> = {};
    c.set('sent', sent);
    const request: RouteRequest = { params: {}, query: {}, body: undefined };
    if (r.query) request.query = parsePiece(r.query, Object.assign(sent, queryOf(c, r.query)));
    if (r.params) request.params = parsePiece(r.params, Object.assign(sent, c.req.param()));
    if (r.body) {
      const body = await jsonBodyOf(c);
      // The path's parameters name the request: a body cannot stand in for them.
      c.set('sent', { ...(typeof body === 'object' && body !== null ? body : {}), ...sent });
      checkJsonShape(body);
      request.body = parsePiece(r.body, body);
    }
    c.set('request', request);
    await next();
  };
}

const json = (schema: z.ZodType, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, json(ErrorBody, ERROR_DESCRIPTIONS[status] ?? 'error')]),
  );
const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'invalid request, invalid JSON or invalid query',
  401: 'missing or invalid bearer',
  403: 'a valid credential of the wrong kind, organization, agent or scope; or a foreign Host/Origin',
  404: 'not found',
  409: 'conflict',
  410: 'gone',
  412: 'precondition failed',
  413: 'body over the documented limit',
  415: 'body not sent as application/json',
  429: 'a quota or rate limit is reached: the message says which and what to do (with `Retry-After` for rate limits)',
};
const SECURITY: Record<CallerSpec['kind'], { [scheme: string]: string[] }[]> = {
  org: [{ OrganizationKey: [] }],
  agent: [{ AgentToken: [] }],
  any: [{ OrganizationKey: [] }, { AgentToken: [] }],
  none: [],
  local: [],
};

/** Hands the schemas' documentation (names, descriptions, examples) to the OpenAPI generator. */
let documentationLoaded = 0;
function loadDocumentation(): void {
  for (; documentationLoaded < documented.length; documentationLoaded++) {
    const [schema, { id, ...meta }] = documented[documentationLoaded]!;
    zodToOpenAPIRegistry.add(schema, { ...meta, ...(id ? { _internal: { refId: id } } : {}) } as never);
  }
}

export function createApp(options: AppOptions): OpenAPIHono<Env> {
  const { service } = options;
  loadDocumentation();
  // Routes are validated by `validated` below, not by the generator's own validators: one check
  // decides what is JSON, and every message says what a field takes.
  const app = new OpenAPIHono<Env>();
  const allowed = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())]);

  app.use(
    '*',
    hostGuard(allowed, new Set((options.publicHosts ?? []).map((h) => h.toLowerCase())), options.publicPaths),
  );
  app.use('*', (c, next) => {
    const maxSize = limitFor(c.req.path);
    const tooLarge = () => {
      throw new ServiceError('payload_too_large', `request body is over ${maxSize} bytes`, {
        limit_bytes: maxSize,
      });
    };
    // A body sent with its length is judged by the header, as bodyLimit judges it, and a GET or
    // HEAD without a chunked body has none; the rest go through bodyLimit, which counts the body
    // as it arrives. bodyLimit first asks for the request's body stream, which makes
    // @hono/node-server build a whole web Request: a tenth of a small request's cost.
    if (c.req.header('transfer-encoding') === undefined) {
      const length = c.req.header('content-length');
      if (length !== undefined) {
        if (Number.parseInt(length, 10) > maxSize) tooLarge();
        return next();
      }
      if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    }
    return bodyLimit({ maxSize, onError: tooLarge })(c, next);
  });

  /**
   * Authenticates before any validation: a bad bearer is 401 whatever the body holds. From here on
   * a refusal is of a known caller, so `onError` hands it to the core to record.
   */
  const authenticated =
    (operation: Operation): MiddlewareHandler<Env> =>
    async (c, next) => {
      c.set('principal', await authenticate(service.ctx, c.req.header('authorization')));
      c.set('operation', operation);
      await next();
    };

  /** A route's per-address limit (docs/API.md): 429 with Retry-After once a client has used it up. */
  const perClient = (r: (typeof ROUTES)[number], rate: Rate): MiddlewareHandler<Env> => {
    const buckets = new Buckets(rate, service.ctx.clock);
    return async (c, next) => {
      const wait = buckets.take(clientOf(c));
      if (wait) {
        throw new ServiceError(
          'rate_limited',
          `too many requests to ${r.method.toUpperCase()} ${r.path} from this address (${rate.burst} at once, then one every ${rate.refillSeconds} s): retry in ${wait} s`,
          { retry_after_seconds: wait },
        );
      }
      await next();
    };
  };

  for (const r of ROUTES) {
    const operation = r.operation;
    if (operation.caller.kind === 'local') throw new Error(`${operation.name} runs in process only`);
    const middleware = [
      ...(r.perClient ? [perClient(r, r.perClient)] : []),
      // Authentication first: a bad bearer is 401 whatever the body holds.
      ...(operation.caller.kind === 'none' ? [] : [authenticated(operation)]),
      validated(r),
    ];
    // The document's entry: served below by the same schemas `validated` applies.
    app.openAPIRegistry.registerPath(
      createRoute({
        operationId: r.operationId ?? operation.name,
        method: r.method,
        path: r.path,
        tags: [r.tag],
        summary: operation.summary,
        ...(r.extension ? { 'x-svc-extension': true } : {}),
        security: SECURITY[operation.caller.kind],
        request: {
          ...(r.params ? { params: r.params } : {}),
          ...(r.query ? { query: r.query } : {}),
          ...(r.body
            ? { body: { content: { 'application/json': { schema: r.body } }, required: true } }
            : {}),
        },
        responses: {
          [r.ok.status]: json(r.response ?? operation.output, r.ok.description),
          // A route that validates parameters, a query or a body answers 400 when they are wrong;
          // every body can be too large or not JSON.
          ...errors(
            ...new Set([
              ...(r.params || r.query || r.body ? [400] : []),
              ...r.errors,
              ...(r.body ? [413, 415] : []),
            ]),
          ),
          ...Object.fromEntries(
            Object.entries(r.errorBodies ?? {}).map(([s, b]) => [s, json(b.schema, b.description)]),
          ),
        },
      }),
    );
    app.on([r.method.toUpperCase()], [r.path.replaceAll(/\{(\w+)\}/g, ':$1')], ...middleware, async (c) => {
      // The pieces were validated against the route's schemas: the operation runs on them as they are.
      const input = await inputOf(r, c.get('request'));
      const result = await runAs(service.ctx, operation, c.get('principal'), input);
      const answer = r.present ? r.present(result, new URL(c.req.url).origin) : result;
      return c.json(answer as object, r.ok.status);
    });
  }

  app.openAPIRegistry.registerComponent('securitySchemes', 'OrganizationKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'Organization API key, prefix ndp_',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'AgentToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'Agent grant token, prefix ndca-',
  });

  // Built once: the routes do not change while the app serves.
  let document: ReturnType<typeof openApiDocument> | undefined;
  app.get('/openapi.json', (c) => c.json((document ??= openApiDocument(app))));
  for (const mount of options.mounts ?? []) mount(app as unknown as Hono);

  app.notFound((c) =>
    c.json(
      new ServiceError('not_found', `no route ${c.req.method} ${c.req.path}; see /openapi.json`).toBody(),
      404,
    ),
  );

  app.onError(async (error, c) => {
    let serviceError = toServiceError(error);
    // A refusal of a known caller decided here, before the operation ran (its validation, say), is
    // recorded as the core records its own; one the operation answered carries its record already.
    const operation = c.get('operation');
    if (operation) {
      try {
        serviceError = toServiceError(
          await recordRefusal(service.ctx, operation, c.get('principal'), c.get('sent') ?? {}, serviceError),
        );
      } catch (failure) {
        serviceError = toServiceError(failure);
      }
    }
    if (serviceError.code === 'internal')
      console.error(`[svc] internal error on ${c.req.method} ${c.req.path}:`, error);
    const wait = serviceError.details.retry_after_seconds;
    if (typeof wait === 'number') c.header('retry-after', String(wait));
    return c.json(serviceError.toBody(), serviceError.status as 400);
  });

  return app;
}

function unsupportedMediaType(): ServiceError {
  return new ServiceError(
    'unsupported_media_type',
    'send the body as JSON with `Content-Type: application/json` (or another `application/…+json` type)',
  );
}

/**
 * Every refusal svc knows of is a ServiceError by the time it is thrown: a body that is not JSON, too
 * large or of another type included (`jsonBodyOf`, `bodyLimit`'s `onError`), as the routes parse and
 * validate bodies themselves rather than through the framework's validators. Anything else is a
 * fault, answered 500 and logged.
 */
function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  return new ServiceError('internal', 'the service failed to handle this request; it was logged');
}

/** Schema keywords that only describe (JSON Schema 2020-12 §9, OpenAPI 3.1's own), never constrain. */
const ANNOTATIONS = new Set(['title', 'description', 'default', 'example', 'examples', 'deprecated']);

/**
 * The generator writes a nullable reference (`Receipt.nullable()`) as
 * `allOf: [{$ref}, {type: ['object', 'null']}]`, which null can never satisfy: it must match the
 * referenced schema too. Rewritten here, once for every such schema, as `anyOf: [{$ref}, {type: 'null'}]`,
 * which is what `z.union([Receipt, z.null()])` gives, with any annotation kept beside it.
 */
function nullableRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullableRefs);
  if (typeof node !== 'object' || node === null) return node;
  const walked = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, nullableRefs(v)])) as Record<
    string,
    unknown
  >;
  const { allOf, ...outer } = walked;
  if (!Array.isArray(allOf) || allOf.length !== 2) return walked;
  const [ref, override] = allOf as [Record<string, unknown>, Record<string, unknown>];
  const isRef = typeof ref.$ref === 'string' && Object.keys(ref).length === 1;
  const { type, ...rest } = override;
  if (!isRef || !Array.isArray(type) || !type.includes('null')) return walked;
  const keep = (annotation: boolean) =>
    Object.fromEntries(Object.entries(rest).filter(([k]) => ANNOTATIONS.has(k) === annotation));
  const constraints = keep(false);
  const branch = Object.keys(constraints).length ? { allOf: [ref, constraints] } : ref;
  return { ...outer, ...keep(true), anyOf: [branch, { type: 'null' }] };
}

export function openApiDocument(app: OpenAPIHono<Env>) {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'svc governed access API',
      version: API_VERSION,
      description:
        'Decisions, audit chain, receipts and the Fabric. Decisions where the spec is silent: docs/API.md.',
      // OpenAPI 3.1 licenses take an SPDX identifier; the generator's types predate it.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' } as { name: string },
    },
    servers: [{ url: 'http://127.0.0.1:8787', description: 'local svc serve' }],
    tags: [
      'governance',
      'fabric',
      'tables',
      'sources',
      'rules',
      'patches',
      'documents',
      'proofs',
      'capsules',
      'recovery',
      'links',
      'exposures',
      'usage',
    ].map((name) => ({
      name,
      description: `${name} endpoints`,
    })),
  });
  return nullableRefs(document) as typeof document;
}
