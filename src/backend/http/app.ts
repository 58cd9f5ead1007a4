// The HTTP API: Hono routes built from the shared zod schemas, one error body, auth first,
// Host/Origin checks against DNS rebinding, and body size limits.
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { mountMcp } from '../../tools/http.ts';
import { mountConnectPages } from './connect-pages.ts';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { ServiceError } from '../errors.ts';
import type { Service } from '../service.ts';
import type { Principal } from '../credentials.ts';
import { ENDPOINTS, type Credential } from './routes.ts';
import * as S from '../schemas.ts';

export const API_VERSION = '1.0.0';
/** Request body limits (docs/API.md): sealed envelopes, backups and row loads get more room. */
export const BODY_LIMIT_BYTES = 1024 * 1024;
export const LARGE_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
const LARGE_BODY_PATHS = [/\/fabric\/send$/, /^\/v1\/recovery\/copy$/, /^\/api\/v1\/tables\/[^/]+\/rows$/];

type Env = { Variables: { principal: Principal } };

export interface AppOptions {
  service: Service;
  /** Extra host names accepted in Host/Origin besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts?: string[];
}

const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];

function hostnameOf(hostHeader: string): string {
  return hostHeader.startsWith('[')
    ? hostHeader.slice(0, hostHeader.indexOf(']') + 1)
    : hostHeader.split(':')[0]!;
}

/** Refuses requests whose Host or Origin names a host we do not serve (DNS rebinding). */
function hostGuard(allowed: Set<string>): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    if (!allowed.has(hostnameOf(host).toLowerCase())) {
      throw new ServiceError('forbidden_host', `host \`${host}\` is not served here; use http://127.0.0.1`);
    }
    const origin = c.req.header('origin');
    if (origin && origin !== 'null') {
      let originHost: string;
      try {
        originHost = new URL(origin).hostname;
      } catch {
        throw new ServiceError('forbidden_host', 'malformed Origin header');
      }
      const normalized =
        originHost.includes(':') && !originHost.startsWith('[') ? `[${originHost}]` : originHost;
      if (!allowed.has(normalized.toLowerCase())) {
        throw new ServiceError('forbidden_host', `requests from origin \`${origin}\` are not accepted`);
      }
    } else if (origin === 'null') {
      throw new ServiceError('forbidden_host', 'requests from an opaque origin are not accepted');
    }
    await next();
  };
}

function limitFor(path: string): number {
  return LARGE_BODY_PATHS.some((p) => p.test(path)) ? LARGE_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
}

function describeIssues(error: z.ZodError): { message: string; issues: { path: string; message: string }[] } {
  const issues = error.issues.map((issue) => ({
    path: issue.path.length ? issue.path.join('.') : '(body)',
    message: issue.message,
  }));
  const message = issues
    .slice(0, 5)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  return { message: `invalid request: ${message}`, issues };
}

const json = (schema: z.ZodType, description: string) => ({
  content: { 'application/json': { schema } },
  description,
});
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [status, json(S.ErrorBody, ERROR_DESCRIPTIONS[status] ?? 'error')]),
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
};
const SECURITY: Record<Credential, { [scheme: string]: string[] }[]> = {
  org: [{ OrganizationKey: [] }],
  agent: [{ AgentToken: [] }],
  any: [{ OrganizationKey: [] }, { AgentToken: [] }],
  none: [],
};

export function createApp(options: AppOptions): OpenAPIHono<Env> {
  const { service } = options;
  const app = new OpenAPIHono<Env>({
    defaultHook: (result) => {
      if (!result.success) {
        const { message, issues } = describeIssues(result.error);
        throw new ServiceError('invalid_request', message, { issues });
      }
    },
  });
  const allowed = new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? []).map((h) => h.toLowerCase())]);

  app.use('*', hostGuard(allowed));
  app.use('*', (c, next) =>
    bodyLimit({
      maxSize: limitFor(c.req.path),
      onError: () => {
        throw new ServiceError('payload_too_large', `request body is over ${limitFor(c.req.path)} bytes`, {
          limit_bytes: limitFor(c.req.path),
        });
      },
    })(c, next),
  );

  /** Authenticates before any validation: a bad bearer is 401 whatever the body holds. */
  const authenticated: MiddlewareHandler<Env> = async (c, next) => {
    c.set('principal', service.authenticate(c.req.header('authorization')));
    await next();
  };

  for (const e of ENDPOINTS) {
    const route = createRoute({
      operationId: e.operationId,
      method: e.method,
      path: e.path,
      tags: [e.tag],
      summary: e.summary,
      ...(e.extension ? { 'x-svc-extension': true } : {}),
      security: SECURITY[e.credential],
      // Authentication first: a bad bearer is 401 whatever the body holds.
      ...(e.credential === 'none' ? {} : { middleware: [authenticated] as const }),
      request: {
        ...(e.params ? { params: e.params } : {}),
        ...(e.query ? { query: e.query } : {}),
        ...(e.body ? { body: { content: { 'application/json': { schema: e.body } }, required: true } } : {}),
      },
      responses: {
        [e.ok.status]: json(e.ok.schema, e.ok.description),
        // Every body can be too large or not JSON; every request can name a foreign Host.
        ...errors(...e.errors, ...(e.body ? [413, 415] : [])),
        ...Object.fromEntries(
          Object.entries(e.errorBodies ?? {}).map(([s, b]) => [s, json(b.schema, b.description)]),
        ),
      },
    });
    const validated = (c: Context<Env>, target: 'json' | 'query' | 'param') =>
      (c.req.valid as (t: string) => unknown)(target);
    app.openapi(
      route,
      async (c) =>
        c.json(
          (await e.handle({
            service,
            principal: c.get('principal'),
            params: e.params ? validated(c, 'param') : {},
            query: e.query ? validated(c, 'query') : {},
            body: e.body ? validated(c, 'json') : undefined,
            origin: new URL(c.req.url).origin,
          })) as object,
          e.ok.status,
        ) as never,
    );
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

  app.get('/openapi.json', (c) => c.json(openApiDocument(app)));
  mountMcp(app as unknown as Hono, service);
  mountConnectPages(app as unknown as Hono, service);

  app.notFound((c) =>
    c.json(
      new ServiceError('not_found', `no route ${c.req.method} ${c.req.path}; see /openapi.json`).toBody(),
      404,
    ),
  );

  app.onError((error, c) => {
    const serviceError = toServiceError(error);
    if (serviceError.code === 'internal')
      console.error(`[svc] internal error on ${c.req.method} ${c.req.path}:`, error);
    return c.json(serviceError.toBody(), serviceError.status as 400);
  });

  return app;
}

function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 400) return new ServiceError('invalid_json', 'request body is not valid JSON');
    if (error.status === 413) return new ServiceError('payload_too_large', 'request body is over the limit');
    if (error.status === 415) {
      return new ServiceError(
        'unsupported_media_type',
        'send the body as JSON with `Content-Type: application/json`',
      );
    }
    return new ServiceError('invalid_request', error.message);
  }
  return new ServiceError('internal', 'the service failed to handle this request; it was logged');
}

export function openApiDocument(app: OpenAPIHono<Env>) {
  return app.getOpenAPI31Document({
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
      'documents',
      'proofs',
      'capsules',
      'recovery',
      'usage',
    ].map((name) => ({
      name,
      description: `${name} endpoints`,
    })),
  });
}
