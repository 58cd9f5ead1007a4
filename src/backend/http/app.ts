// The HTTP API: Hono routes built from the shared zod schemas, one error body, auth first,
// Host/Origin checks against DNS rebinding, and body size limits.
import { OpenAPIHono, createRoute, type z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { bodyLimit } from 'hono/body-limit';
import { ServiceError } from '../errors.ts';
import type { Service } from '../service.ts';
import type { Principal } from '../credentials.ts';
import { parseCsv } from '../csv.ts';
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
};
const body = (schema: z.ZodType) => ({
  body: { content: { 'application/json': { schema } }, required: true },
});
const orgAuth = [{ OrganizationKey: [] }];
const agentAuth = [{ AgentToken: [] }];

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
  const who = (c: Context<Env>) => c.get('principal');
  const valid = <T extends z.ZodType>(
    c: Context<Env>,
    target: 'json' | 'query' | 'param',
    _schema: T,
  ): z.infer<T> => (c.req.valid as (t: string) => unknown)(target) as z.infer<T>;
  const origin = (c: Context) => new URL(c.req.url).origin;

  // ------------------------------------------------------------ first group: /api

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/governance/grant',
      operationId: 'createGrant',
      tags: ['governance'],
      summary: 'Create an agent and its scoped grant',
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.GrantRequest),
      responses: {
        201: json(S.GrantResponse, 'agent and grant created; grant_token is shown once'),
        ...errors(400, 401, 403, 413),
      },
    }),
    (c) => {
      const result = service.createGrant(who(c), valid(c, 'json', S.GrantRequest));
      return c.json({ ...result, read_url: origin(c) + result.read_url }, 201) as never;
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/agents',
      operationId: 'listAgents',
      tags: ['governance'],
      summary: 'The roster of agents',
      security: orgAuth,
      middleware: [authenticated] as const,
      responses: { 200: json(S.AgentsResponse, 'agents of this organization'), ...errors(401, 403) },
    }),
    (c) => c.json(service.listAgents(who(c)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/governance/revoke',
      operationId: 'revokeAgent',
      tags: ['governance'],
      summary: 'Revoke an agent (by handle) or one grant (by jti)',
      description: 'Extension: the HTTP form of the revoke the tool interface and CLI offer.',
      'x-svc-extension': true,
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.RevokeRequest),
      responses: {
        200: json(S.RevokeResponse, 'revoked; receipted when anything changed'),
        ...errors(400, 401, 403, 404),
      },
    }),
    (c) => c.json(service.revokeAgent(who(c), valid(c, 'json', S.RevokeRequest).target), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/access/compute',
      operationId: 'computeDecision',
      tags: ['governance'],
      summary: 'Plan: may this agent do this? No data released, no keys derived',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { query: S.ComputeQuery, ...body(S.ComputeRequest) },
      responses: { 200: json(S.AccessDecisionSchema, 'the decision'), ...errors(400, 401, 403, 404) },
    }),
    (c) => {
      const query = valid(c, 'query', S.ComputeQuery);
      return c.json(
        service.compute(who(c), valid(c, 'json', S.ComputeRequest), query.receipt === 'true'),
        200,
      ) as never;
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/agents/{handle}/read',
      operationId: 'readRows',
      tags: ['governance'],
      summary: 'Execute: release the granted columns; every attempt appends an audit row',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { params: S.HandleParam, ...body(S.ReadRequest) },
      responses: {
        200: json(S.ReadResponse, 'rows and the audit reference'),
        403: json(
          S.ScopeViolation,
          'scope_violation (with denied_columns and audit), or a token of another agent',
        ),
        ...errors(400, 401, 404),
      },
    }),
    (c) =>
      c.json(
        service.read(who(c), valid(c, 'param', S.HandleParam).handle, valid(c, 'json', S.ReadRequest)),
        200,
      ) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/agents/{handle}/fabric/enroll',
      operationId: 'enrollFabric',
      tags: ['fabric'],
      summary: 'Register an X25519 public key and get a Fabric address',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { params: S.HandleParam, ...body(S.EnrollRequest) },
      responses: { 200: json(S.EnrollResponse, 'enrolled'), ...errors(400, 401, 403, 409) },
    }),
    (c) =>
      c.json(
        service.enroll(
          who(c),
          valid(c, 'param', S.HandleParam).handle,
          valid(c, 'json', S.EnrollRequest).ecdh_pubkey_hex,
        ),
        200,
      ) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/fabric-grants',
      operationId: 'listFabricGrants',
      tags: ['fabric'],
      summary: 'Outbound grants issued and inbound grants naming this organization’s agents',
      security: orgAuth,
      middleware: [authenticated] as const,
      responses: { 200: json(S.FabricGrantList, 'grants'), ...errors(401, 403) },
    }),
    (c) => c.json(service.listFabricGrants(who(c)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/fabric-grants',
      operationId: 'createFabricGrant',
      tags: ['fabric'],
      summary: 'Authorize a recipient address (deny by default)',
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.FabricGrantRequest),
      responses: { 201: json(S.FabricGrantCreated, 'granted and receipted'), ...errors(400, 401, 403, 409) },
    }),
    (c) => c.json(service.createFabricGrant(who(c), valid(c, 'json', S.FabricGrantRequest)), 201) as never,
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/api/v1/fabric-grants',
      operationId: 'revokeFabricGrant',
      tags: ['fabric'],
      summary: 'Revoke a connection',
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.FabricRevokeRequest),
      responses: {
        200: json(S.FabricGrantRevoked, 'revoked and receipted (idempotent)'),
        ...errors(400, 401, 403, 404),
      },
    }),
    (c) => {
      const input = valid(c, 'json', S.FabricRevokeRequest);
      return c.json(service.revokeFabricGrant(who(c), input.grant_id, input.reason), 200) as never;
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/agents/{handle}/fabric/send',
      operationId: 'sendEnvelope',
      tags: ['fabric'],
      summary: 'Store a sealed envelope; sign a metadata-only receipt',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { params: S.HandleParam, ...body(S.SendRequest) },
      responses: { 200: json(S.SendResponse, 'stored and receipted'), ...errors(400, 401, 403, 412, 413) },
    }),
    (c) =>
      c.json(
        service.send(who(c), valid(c, 'param', S.HandleParam).handle, valid(c, 'json', S.SendRequest)),
        200,
      ) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/agents/{handle}/fabric/inbox',
      operationId: 'listInbox',
      tags: ['fabric'],
      summary: 'Envelopes addressed to this agent: metadata only',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { params: S.HandleParam },
      responses: {
        200: json(S.InboxResponse, 'metadata only; no ciphertext, no wrapped key'),
        ...errors(401, 403, 412),
      },
    }),
    (c) => c.json(service.inbox(who(c), valid(c, 'param', S.HandleParam).handle), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/agents/{handle}/fabric/fetch',
      operationId: 'fetchEnvelope',
      tags: ['fabric'],
      summary: 'Fetch one envelope through the gate',
      security: agentAuth,
      middleware: [authenticated] as const,
      request: { params: S.HandleParam, ...body(S.FetchRequest) },
      responses: {
        200: json(S.FetchResponse, 'allowed: sealed parts released after the allow receipt'),
        403: json(S.FabricDenied, 'fabric_denied with reasons and the receipt of the signed denial'),
        ...errors(400, 401, 404, 410),
      },
    }),
    (c) =>
      c.json(
        service.fetch(
          who(c),
          valid(c, 'param', S.HandleParam).handle,
          valid(c, 'json', S.FetchRequest).blob_id,
        ),
        200,
      ) as never,
  );

  // ------------------------------------------------------------ tables (extension)

  app.openapi(
    createRoute({
      method: 'get',
      path: '/api/v1/tables',
      operationId: 'listTables',
      tags: ['tables'],
      summary: 'Registered tables and their columns',
      'x-svc-extension': true,
      security: orgAuth,
      middleware: [authenticated] as const,
      responses: { 200: json(S.TablesResponse, 'tables'), ...errors(401, 403) },
    }),
    (c) => c.json(service.listTables(who(c)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/tables',
      operationId: 'registerTable',
      tags: ['tables'],
      summary: 'Register a table: columns with classification and storage',
      'x-svc-extension': true,
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.TableSchema),
      responses: { 201: json(S.TableSchema, 'registered'), ...errors(400, 401, 403, 409) },
    }),
    (c) => c.json(service.registerTable(who(c), valid(c, 'json', S.TableSchema)), 201) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/api/v1/tables/{name}/rows',
      operationId: 'loadRows',
      tags: ['tables'],
      summary: 'Load rows from JSON or CSV',
      'x-svc-extension': true,
      security: orgAuth,
      middleware: [authenticated] as const,
      request: { params: S.TableParam, ...body(S.LoadRowsRequest) },
      responses: { 200: json(S.LoadRowsResponse, 'loaded'), ...errors(400, 401, 403, 404, 413) },
    }),
    (c) => {
      const input = valid(c, 'json', S.LoadRowsRequest);
      const rows = input.format === 'json' ? input.rows : parseCsv(input.csv);
      return c.json(service.loadRows(who(c), valid(c, 'param', S.TableParam).name, rows), 200) as never;
    },
  );

  // ------------------------------------------------------------ second group

  app.openapi(
    createRoute({
      method: 'post',
      path: '/v1/documents/compute',
      operationId: 'computeDocuments',
      tags: ['documents'],
      summary: 'Answer a question from the sections the clearance allows',
      security: orgAuth,
      middleware: [authenticated] as const,
      request: body(S.DocumentsRequest),
      responses: {
        200: json(S.DocumentsResponse, 'decision, answer and its signed proof'),
        ...errors(400, 401, 403, 413),
      },
    }),
    (c) => c.json(service.computeDocuments(who(c), valid(c, 'json', S.DocumentsRequest)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/access/verify',
      security: [],
      operationId: 'verifyProof',
      tags: ['proofs'],
      summary: 'Verify a proof by id (no credential)',
      request: body(S.VerifyRequest),
      responses: {
        200: json(S.VerifyResponse, 'the verdict; unknown or altered proofs are never true'),
        ...errors(400),
      },
    }),
    (c) => c.json(service.verify(valid(c, 'json', S.VerifyRequest).proof_id), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/access/proofs/{id}',
      security: [],
      operationId: 'getProof',
      tags: ['proofs'],
      summary: 'The signed record of a proof, for offline verification (no credential)',
      'x-svc-extension': true,
      request: { params: S.ProofParam },
      responses: { 200: json(S.ReceiptSchema, 'the receipt with its payload'), ...errors(400, 404) },
    }),
    (c) => c.json(service.proof(valid(c, 'param', S.ProofParam).id), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/.well-known/svc-keys.json',
      security: [],
      operationId: 'getPublishedKeys',
      tags: ['proofs'],
      summary: 'The service signing keys (Ed25519), by signing_kid',
      'x-svc-extension': true,
      responses: { 200: json(S.PublishedKeys, 'published keys'), ...errors(403) },
    }),
    (c) => c.json(service.publishedKeys(), 200) as never,
  );

  const capsuleRoute = (
    operationId: string,
    method: 'get' | 'post',
    path: string,
    summary: string,
    request: Record<string, unknown>,
    ok: number,
    schema: z.ZodType,
    errs: number[],
  ) =>
    createRoute({
      operationId,
      method,
      path,
      tags: ['capsules'],
      summary,
      security: orgAuth,
      middleware: [authenticated] as const,
      request,
      responses: { [ok]: json(schema, summary), ...errors(...errs) },
    });

  app.openapi(
    capsuleRoute(
      'createCapsule',
      'post',
      '/v1/capsules',
      'Create a capsule',
      body(S.CapsuleCreateRequest),
      201,
      S.CapsuleSummary,
      [400, 401, 403],
    ),
    (c) => c.json(service.createCapsule(who(c), valid(c, 'json', S.CapsuleCreateRequest).name), 201) as never,
  );
  app.openapi(
    capsuleRoute('listCapsules', 'get', '/v1/capsules', 'List capsules', {}, 200, S.CapsuleList, [401, 403]),
    (c) => c.json(service.listCapsules(who(c)), 200) as never,
  );
  app.openapi(
    capsuleRoute(
      'getCapsule',
      'get',
      '/v1/capsules/{id}',
      'Read one capsule',
      { params: S.IdParam },
      200,
      S.CapsuleDetail,
      [401, 403, 404],
    ),
    (c) => c.json(service.getCapsule(who(c), valid(c, 'param', S.IdParam).id), 200) as never,
  );
  app.openapi(
    capsuleRoute(
      'addCapsuleDocument',
      'post',
      '/v1/capsules/{id}/documents',
      'Seal a document into a capsule',
      { params: S.IdParam, ...body(S.CapsuleDocumentRequest) },
      201,
      S.CapsuleDocument,
      [400, 401, 403, 404, 409],
    ),
    (c) =>
      c.json(
        service.addCapsuleDocument(
          who(c),
          valid(c, 'param', S.IdParam).id,
          valid(c, 'json', S.CapsuleDocumentRequest),
        ),
        201,
      ) as never,
  );
  app.openapi(
    capsuleRoute(
      'addCapsuleMember',
      'post',
      '/v1/capsules/{id}/members',
      'Add a person to a capsule',
      { params: S.IdParam, ...body(S.CapsuleMemberRequest) },
      201,
      S.CapsuleMember,
      [400, 401, 403, 404, 409],
    ),
    (c) =>
      c.json(
        service.addCapsuleMember(
          who(c),
          valid(c, 'param', S.IdParam).id,
          valid(c, 'json', S.CapsuleMemberRequest),
        ),
        201,
      ) as never,
  );
  app.openapi(
    capsuleRoute(
      'addCapsuleAiGrant',
      'post',
      '/v1/capsules/{id}/ai-grants',
      'Let an agent read a capsule’s documents',
      { params: S.IdParam, ...body(S.CapsuleAiGrantRequest) },
      201,
      S.CapsuleAiGrant,
      [400, 401, 403, 404, 409],
    ),
    (c) =>
      c.json(
        service.addCapsuleAiGrant(
          who(c),
          valid(c, 'param', S.IdParam).id,
          valid(c, 'json', S.CapsuleAiGrantRequest),
        ),
        201,
      ) as never,
  );
  app.openapi(
    capsuleRoute(
      'revokeCapsule',
      'post',
      '/v1/capsules/{id}/revoke',
      'Turn every access to a capsule off',
      { params: S.IdParam },
      200,
      S.CapsuleRevoked,
      [401, 403, 404],
    ),
    (c) => c.json(service.revokeCapsule(who(c), valid(c, 'param', S.IdParam).id), 200) as never,
  );

  const recoveryRoute = (
    operationId: string,
    method: 'get' | 'post',
    path: string,
    summary: string,
    request: Record<string, unknown>,
    ok: number,
    schema: z.ZodType,
    errs: number[],
  ) =>
    createRoute({
      operationId,
      method,
      path,
      tags: ['recovery'],
      summary,
      security: orgAuth,
      middleware: [authenticated] as const,
      request,
      responses: { [ok]: json(schema, summary), ...errors(...errs) },
    });

  app.openapi(
    recoveryRoute(
      'setRecoveryKey',
      'post',
      '/v1/recovery/pubkey',
      'Set the public key derived from the 12-word phrase',
      body(S.RecoveryPubkeyRequest),
      201,
      S.RecoveryPubkeyResponse,
      [400, 401, 403],
    ),
    (c) =>
      c.json(
        service.setRecoveryKey(who(c), valid(c, 'json', S.RecoveryPubkeyRequest).pubkey_hex),
        201,
      ) as never,
  );
  app.openapi(
    recoveryRoute(
      'storeRecoveryCopy',
      'post',
      '/v1/recovery/copy',
      'Store a vault backup sealed to the recovery key',
      body(S.RecoveryCopyRequest),
      201,
      S.RecoveryCopy,
      [400, 401, 403, 409, 413],
    ),
    (c) => c.json(service.storeRecoveryCopy(who(c), valid(c, 'json', S.RecoveryCopyRequest)), 201) as never,
  );
  app.openapi(
    recoveryRoute(
      'recordRecoveryEvent',
      'post',
      '/v1/recovery/event',
      'Record a recovery event',
      body(S.RecoveryEventRequest),
      201,
      S.RecoveryEvent,
      [400, 401, 403],
    ),
    (c) =>
      c.json(service.recordRecoveryEvent(who(c), valid(c, 'json', S.RecoveryEventRequest)), 201) as never,
  );
  app.openapi(
    recoveryRoute(
      'getRecoveryState',
      'get',
      '/v1/recovery/state',
      'Recovery state',
      {},
      200,
      S.RecoveryState,
      [401, 403],
    ),
    (c) => c.json(service.recoveryState(who(c)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/overview',
      operationId: 'getOverview',
      tags: ['usage'],
      summary: 'The usage meter and what the organization holds',
      security: orgAuth,
      middleware: [authenticated] as const,
      responses: { 200: json(S.OverviewSchema, 'overview'), ...errors(401, 403) },
    }),
    (c) => c.json(service.overview(who(c)), 200) as never,
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/v1/usage/invoice',
      operationId: 'getInvoice',
      tags: ['usage'],
      summary: 'Decisions this period against the free allowance',
      security: orgAuth,
      middleware: [authenticated] as const,
      request: { query: S.InvoiceQuery },
      responses: { 200: json(S.InvoiceSchema, 'invoice'), ...errors(400, 401, 403) },
    }),
    (c) => c.json(service.invoice(who(c), valid(c, 'query', S.InvoiceQuery).period), 200) as never,
  );

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
    tags: ['governance', 'fabric', 'tables', 'documents', 'proofs', 'capsules', 'recovery', 'usage'].map(
      (name) => ({
        name,
        description: `${name} endpoints`,
      }),
    ),
  });
}
