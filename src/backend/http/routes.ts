// Every HTTP endpoint as one declaration: path, credential, schemas, documented statuses and the
// core call. app.ts registers them all in one loop; the OpenAPI document is built from them.
import { z } from '@hono/zod-openapi';
import type { Service } from '../service.ts';
import type { Principal } from '../credentials.ts';
import { parseCsv } from '../csv.ts';
import * as S from '../schemas.ts';

/** `any`: either credential kind (the endpoint answers about the caller). */
export type Credential = 'org' | 'agent' | 'any' | 'none';

interface Input<P, Q, B> {
  service: Service;
  principal: Principal;
  params: P;
  query: Q;
  body: B;
  /** `scheme://host` of this request, for URLs the answer hands back. */
  origin: string;
}

export interface Endpoint {
  operationId: string;
  method: 'get' | 'post' | 'patch';
  path: string;
  tag: string;
  summary: string;
  credential: Credential;
  /** Not in the specification: marked `x-svc-extension` in the OpenAPI document. */
  extension?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: 200 | 201; schema: z.ZodType; description: string };
  /** Documented error statuses; 413 and 415 are added to every endpoint with a body. */
  errors: number[];
  /** Error statuses whose body carries more than the common error fields. */
  errorBodies?: Record<number, { schema: z.ZodType; description: string }>;
  handle(input: Input<unknown, unknown, unknown>): unknown;
}

/** Types one declaration: the handler sees its params, query and body as its schemas parse them. */
function endpoint<
  P extends z.ZodObject = z.ZodObject,
  Q extends z.ZodObject = z.ZodObject,
  B extends z.ZodType = z.ZodType,
>(
  spec: Omit<Endpoint, 'handle' | 'params' | 'query' | 'body'> & {
    params?: P;
    query?: Q;
    body?: B;
    handle(input: Input<z.infer<P>, z.infer<Q>, z.infer<B>>): unknown;
  },
): Endpoint {
  return spec as Endpoint;
}

export const ENDPOINTS: Endpoint[] = [
  // ---------------------------------------------------------------- first group: governance
  endpoint({
    operationId: 'createGrant',
    method: 'post',
    path: '/api/v1/governance/grant',
    tag: 'governance',
    summary: 'Create an agent and its scoped grant',
    credential: 'org',
    body: S.GrantRequest,
    ok: {
      status: 201,
      schema: S.GrantResponse,
      description: 'agent and grant created; grant_token is shown once',
    },
    errors: [400, 401, 403],
    handle: ({ service, principal, body, origin }) => {
      const result = service.createGrant(principal, body);
      return { ...result, read_url: origin + result.read_url };
    },
  }),
  endpoint({
    operationId: 'listAgents',
    method: 'get',
    path: '/api/v1/agents',
    tag: 'governance',
    summary: 'The roster of agents',
    credential: 'org',
    ok: { status: 200, schema: S.AgentsResponse, description: 'agents of this organization' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.listAgents(principal),
  }),
  endpoint({
    operationId: 'revokeAgent',
    method: 'post',
    path: '/api/v1/governance/revoke',
    tag: 'governance',
    summary: 'Revoke an agent (by handle) or one grant (by jti)',
    credential: 'org',
    extension: true,
    body: S.RevokeRequest,
    ok: { status: 200, schema: S.RevokeResponse, description: 'revoked; receipted when anything changed' },
    errors: [400, 401, 403, 404],
    handle: ({ service, principal, body }) => service.revokeAgent(principal, body.target),
  }),
  endpoint({
    operationId: 'computeDecision',
    method: 'post',
    path: '/api/access/compute',
    tag: 'governance',
    summary: 'Plan: may this agent do this? No data released, no keys derived',
    credential: 'agent',
    query: S.ComputeQuery,
    body: S.ComputeRequest,
    ok: { status: 200, schema: S.AccessDecisionSchema, description: 'the decision' },
    errors: [400, 401, 403, 404],
    handle: ({ service, principal, query, body }) =>
      service.compute(principal, body, query.receipt === 'true'),
  }),
  endpoint({
    operationId: 'readRows',
    method: 'post',
    path: '/api/agents/{handle}/read',
    tag: 'governance',
    summary: 'Execute: release the granted columns; every attempt appends an audit row',
    credential: 'agent',
    params: S.HandleParam,
    body: S.ReadRequest,
    ok: { status: 200, schema: S.ReadResponse, description: 'rows and the audit reference' },
    errors: [400, 401, 404],
    errorBodies: {
      403: {
        schema: z.union([S.ScopeViolation, S.ErrorBody]),
        description: 'scope_violation (denied_columns, audit), or another agent’s token',
      },
    },
    handle: ({ service, principal, params, body }) => service.read(principal, params.handle, body),
  }),

  // ---------------------------------------------------------------- first group: Fabric
  endpoint({
    operationId: 'enrollFabric',
    method: 'post',
    path: '/api/agents/{handle}/fabric/enroll',
    tag: 'fabric',
    summary: 'Register an X25519 public key and get a Fabric address',
    credential: 'agent',
    params: S.HandleParam,
    body: S.EnrollRequest,
    ok: { status: 200, schema: S.EnrollResponse, description: 'enrolled' },
    errors: [400, 401, 403, 409],
    handle: ({ service, principal, params, body }) =>
      service.enroll(principal, params.handle, body.ecdh_pubkey_hex),
  }),
  endpoint({
    operationId: 'listFabricGrants',
    method: 'get',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    summary: 'Outbound grants issued and inbound grants naming this organization’s agents',
    credential: 'org',
    ok: { status: 200, schema: S.FabricGrantList, description: 'grants' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.listFabricGrants(principal),
  }),
  endpoint({
    operationId: 'createFabricGrant',
    method: 'post',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    summary: 'Authorize a recipient address (deny by default)',
    credential: 'org',
    body: S.FabricGrantRequest,
    ok: { status: 201, schema: S.FabricGrantCreated, description: 'granted and receipted' },
    errors: [400, 401, 403, 409],
    handle: ({ service, principal, body }) => service.createFabricGrant(principal, body),
  }),
  endpoint({
    operationId: 'revokeFabricGrant',
    method: 'patch',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    summary: 'Revoke a connection',
    credential: 'org',
    body: S.FabricRevokeRequest,
    ok: { status: 200, schema: S.FabricGrantRevoked, description: 'revoked and receipted (idempotent)' },
    errors: [400, 401, 403, 404],
    handle: ({ service, principal, body }) =>
      service.revokeFabricGrant(principal, body.grant_id, body.reason),
  }),
  endpoint({
    operationId: 'sendEnvelope',
    method: 'post',
    path: '/api/agents/{handle}/fabric/send',
    tag: 'fabric',
    summary: 'Store a sealed envelope; sign a metadata-only receipt',
    credential: 'agent',
    params: S.HandleParam,
    body: S.SendRequest,
    ok: { status: 200, schema: S.SendResponse, description: 'stored and receipted' },
    errors: [400, 401, 403, 412],
    handle: ({ service, principal, params, body }) => service.send(principal, params.handle, body),
  }),
  endpoint({
    operationId: 'listInbox',
    method: 'get',
    path: '/api/agents/{handle}/fabric/inbox',
    tag: 'fabric',
    summary: 'Envelopes addressed to this agent: metadata only',
    credential: 'agent',
    params: S.HandleParam,
    ok: { status: 200, schema: S.InboxResponse, description: 'metadata only; no ciphertext, no wrapped key' },
    errors: [401, 403, 412],
    handle: ({ service, principal, params }) => service.inbox(principal, params.handle),
  }),
  endpoint({
    operationId: 'fetchEnvelope',
    method: 'post',
    path: '/api/agents/{handle}/fabric/fetch',
    tag: 'fabric',
    summary: 'Fetch one envelope through the gate',
    credential: 'agent',
    params: S.HandleParam,
    body: S.FetchRequest,
    ok: {
      status: 200,
      schema: S.FetchResponse,
      description: 'allowed: sealed parts released after the allow receipt',
    },
    errors: [400, 401, 404, 410],
    errorBodies: {
      403: {
        schema: z.union([S.FabricDenied, S.ErrorBody]),
        description: 'fabric_denied with reasons and the receipt of the signed denial',
      },
    },
    handle: ({ service, principal, params, body }) => service.fetch(principal, params.handle, body.blob_id),
  }),

  // ---------------------------------------------------------------- tables (extension)
  endpoint({
    operationId: 'listTables',
    method: 'get',
    path: '/api/v1/tables',
    tag: 'tables',
    summary: 'Registered tables and their columns',
    credential: 'org',
    extension: true,
    ok: { status: 200, schema: S.TablesResponse, description: 'tables' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.listTables(principal),
  }),
  endpoint({
    operationId: 'registerTable',
    method: 'post',
    path: '/api/v1/tables',
    tag: 'tables',
    summary: 'Register a table: columns with classification and storage',
    credential: 'org',
    extension: true,
    body: S.TableSchema,
    ok: { status: 201, schema: S.TableSchema, description: 'registered' },
    errors: [400, 401, 403, 409],
    handle: ({ service, principal, body }) => service.registerTable(principal, body),
  }),
  endpoint({
    operationId: 'loadRows',
    method: 'post',
    path: '/api/v1/tables/{name}/rows',
    tag: 'tables',
    summary: 'Load rows from JSON or CSV',
    credential: 'org',
    extension: true,
    params: S.TableParam,
    body: S.LoadRowsRequest,
    ok: { status: 200, schema: S.LoadRowsResponse, description: 'loaded' },
    errors: [400, 401, 403, 404],
    handle: ({ service, principal, params, body }) =>
      service.loadRows(principal, params.name, body.format === 'json' ? body.rows : parseCsv(body.csv)),
  }),

  // ---------------------------------------------------------------- extensions the MCP tools use over HTTP
  endpoint({
    operationId: 'whoami',
    method: 'get',
    path: '/api/v1/whoami',
    tag: 'governance',
    summary: 'Who this credential is (never the credential itself)',
    credential: 'any',
    extension: true,
    ok: { status: 200, schema: S.WhoamiSchema, description: 'the caller' },
    errors: [401],
    handle: ({ service, principal }) => service.whoami(principal),
  }),
  endpoint({
    operationId: 'getPolicyBoard',
    method: 'get',
    path: '/api/v1/policy',
    tag: 'governance',
    summary: 'Every agent with its grants, their reach and its last read',
    credential: 'org',
    extension: true,
    ok: { status: 200, schema: S.PolicyBoardSchema, description: 'the board' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.policyBoard(principal),
  }),
  endpoint({
    operationId: 'listProofs',
    method: 'get',
    path: '/api/v1/proofs',
    tag: 'proofs',
    summary: "The organization's signed receipts, newest first",
    credential: 'org',
    extension: true,
    query: S.ProofsQuery,
    ok: { status: 200, schema: S.ProofListSchema, description: 'one page of receipts' },
    errors: [400, 401, 403],
    handle: ({ service, principal, query }) => service.listProofs(principal, query),
  }),
  endpoint({
    operationId: 'retrieve',
    method: 'post',
    path: '/api/access/retrieve',
    tag: 'governance',
    summary: 'Read only what the grant allows; name what is withheld',
    credential: 'agent',
    extension: true,
    body: S.RetrieveRequest,
    ok: {
      status: 200,
      schema: S.RetrieveResponse,
      description: 'the plan, the allowed rows and the audit row',
    },
    errors: [400, 401, 403, 404],
    handle: ({ service, principal, body }) => service.retrieve(principal, body),
  }),
  endpoint({
    operationId: 'registerNode',
    method: 'post',
    path: '/api/v1/nodes',
    tag: 'governance',
    summary: 'Register (or refresh) a machine as a node of the organization',
    credential: 'org',
    extension: true,
    body: S.NodeRequest,
    ok: { status: 200, schema: S.NodeRegistration, description: 'the node' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.registerNode(principal, body),
  }),
  endpoint({
    operationId: 'acceptTerms',
    method: 'post',
    path: '/api/v1/terms',
    tag: 'governance',
    summary: 'Record acceptance of a version of the terms, with a signed receipt',
    credential: 'org',
    extension: true,
    body: S.TermsAcceptRequest,
    ok: { status: 200, schema: S.TermsAcceptance, description: 'accepted (idempotent)' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.acceptTerms(principal, body),
  }),
  endpoint({
    operationId: 'getTermsAcceptance',
    method: 'get',
    path: '/api/v1/terms/{version}',
    tag: 'governance',
    summary: 'Whether the organization accepted a version of the terms',
    credential: 'org',
    extension: true,
    params: S.TermsVersionParam,
    ok: { status: 200, schema: S.TermsState, description: 'the acceptance, or null' },
    errors: [400, 401, 403],
    handle: ({ service, principal, params }) => ({
      version: params.version,
      acceptance: service.termsAcceptance(principal, params.version),
    }),
  }),

  endpoint({
    operationId: 'useCapability',
    method: 'post',
    path: '/api/access/use',
    tag: 'sources',
    summary: 'An agent calls a source its grant allows; the service injects the credential',
    credential: 'agent',
    extension: true,
    body: S.UseRequest,
    ok: { status: 200, schema: S.SourceCallResult, description: "the API's answer, credential masked" },
    errors: [400, 401, 403, 404, 410],
    errorBodies: {
      403: {
        schema: S.ErrorBody,
        description: 'scope_violation with denied_capability, or the wrong credential',
      },
    },
    handle: ({ service, principal, body }) => service.useCapability(principal, body),
  }),
  endpoint({
    operationId: 'registerSource',
    method: 'post',
    path: '/api/v1/sources',
    tag: 'sources',
    summary: 'Register an external HTTP API; its credential is sealed and never returned',
    credential: 'org',
    extension: true,
    body: S.SourceRequest,
    ok: { status: 201, schema: S.SourceView, description: 'registered' },
    errors: [400, 401, 403, 409],
    handle: ({ service, principal, body }) => service.registerSource(principal, body),
  }),
  endpoint({
    operationId: 'listSources',
    method: 'get',
    path: '/api/v1/sources',
    tag: 'sources',
    summary: 'Registered external APIs (credentials never shown)',
    credential: 'org',
    extension: true,
    ok: { status: 200, schema: S.SourceList, description: 'sources' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.listSources(principal),
  }),
  endpoint({
    operationId: 'callSource',
    method: 'post',
    path: '/api/v1/sources/{name}/call',
    tag: 'sources',
    summary: 'Call a registered API with its credential injected; the answer is masked and receipted',
    credential: 'org',
    extension: true,
    params: S.SourceNameParam,
    body: S.SourceCallRequest,
    ok: { status: 200, schema: S.SourceCallResult, description: "the API's answer" },
    errors: [400, 401, 403, 404, 410],
    handle: ({ service, principal, params, body }) =>
      service.callSource(principal, { ...body, source: params.name }),
  }),

  endpoint({
    operationId: 'startConnect',
    method: 'post',
    path: '/api/v1/connect/device',
    tag: 'governance',
    summary: 'Start linking a computer (RFC 8628 device authorization): a device code and a user code',
    credential: 'none',
    extension: true,
    body: S.ConnectStartRequest,
    ok: {
      status: 200,
      schema: S.ConnectStart,
      description: 'codes, the approval page and the polling interval',
    },
    errors: [400],
    handle: ({ service, body, origin }) => {
      const started = service.startConnect(body);
      return { ...started, verification_uri: origin + started.verification_path };
    },
  }),
  endpoint({
    operationId: 'pollConnect',
    method: 'post',
    path: '/api/v1/connect/token',
    tag: 'governance',
    summary: 'Poll a connection: pending, denied, expired, or approved with the new key (delivered once)',
    credential: 'none',
    extension: true,
    body: S.ConnectPollRequest,
    ok: { status: 200, schema: S.ConnectPoll, description: 'the state' },
    errors: [400, 404, 410],
    handle: ({ service, body }) => service.pollConnect(body.device_code),
  }),

  // ---------------------------------------------------------------- second group: documents, proofs
  endpoint({
    operationId: 'computeDocuments',
    method: 'post',
    path: '/v1/documents/compute',
    tag: 'documents',
    summary: 'Answer a question from the sections the clearance allows',
    credential: 'org',
    body: S.DocumentsRequest,
    ok: { status: 200, schema: S.DocumentsResponse, description: 'decision, answer and its signed proof' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.computeDocuments(principal, body),
  }),
  endpoint({
    operationId: 'verifyProof',
    method: 'post',
    path: '/access/verify',
    tag: 'proofs',
    summary: 'Verify a proof by id (no credential)',
    credential: 'none',
    body: S.VerifyRequest,
    ok: {
      status: 200,
      schema: S.VerifyResponse,
      description: 'the verdict; unknown or altered proofs are never true',
    },
    errors: [400],
    handle: ({ service, body }) => service.verify(body.proof_id),
  }),
  endpoint({
    operationId: 'getProof',
    method: 'get',
    path: '/access/proofs/{id}',
    tag: 'proofs',
    summary: 'The signed record of a proof, for offline verification (no credential)',
    credential: 'none',
    extension: true,
    params: S.ProofParam,
    ok: { status: 200, schema: S.ReceiptSchema, description: 'the receipt with its payload' },
    errors: [400, 404],
    handle: ({ service, params }) => service.proof(params.id),
  }),
  endpoint({
    operationId: 'getPublishedKeys',
    method: 'get',
    path: '/.well-known/svc-keys.json',
    tag: 'proofs',
    summary: 'The service signing keys (Ed25519), by signing_kid',
    credential: 'none',
    extension: true,
    ok: { status: 200, schema: S.PublishedKeys, description: 'published keys' },
    errors: [403],
    handle: ({ service }) => service.publishedKeys(),
  }),

  // ---------------------------------------------------------------- second group: capsules
  endpoint({
    operationId: 'createCapsule',
    method: 'post',
    path: '/v1/capsules',
    tag: 'capsules',
    summary: 'Create a capsule',
    credential: 'org',
    body: S.CapsuleCreateRequest,
    ok: { status: 201, schema: S.CapsuleSummary, description: 'created' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.createCapsule(principal, body.name),
  }),
  endpoint({
    operationId: 'listCapsules',
    method: 'get',
    path: '/v1/capsules',
    tag: 'capsules',
    summary: 'List capsules',
    credential: 'org',
    ok: { status: 200, schema: S.CapsuleList, description: 'capsules' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.listCapsules(principal),
  }),
  endpoint({
    operationId: 'getCapsule',
    method: 'get',
    path: '/v1/capsules/{id}',
    tag: 'capsules',
    summary: 'Read one capsule',
    credential: 'org',
    params: S.IdParam,
    ok: {
      status: 200,
      schema: S.CapsuleDetail,
      description: 'the capsule with its documents, members and AI grants',
    },
    errors: [401, 403, 404],
    handle: ({ service, principal, params }) => service.getCapsule(principal, params.id),
  }),
  endpoint({
    operationId: 'addCapsuleDocument',
    method: 'post',
    path: '/v1/capsules/{id}/documents',
    tag: 'capsules',
    summary: 'Seal a document into a capsule',
    credential: 'org',
    params: S.IdParam,
    body: S.CapsuleDocumentRequest,
    ok: { status: 201, schema: S.CapsuleDocument, description: 'sealed' },
    errors: [400, 401, 403, 404, 409],
    handle: ({ service, principal, params, body }) => service.addCapsuleDocument(principal, params.id, body),
  }),
  endpoint({
    operationId: 'addCapsuleMember',
    method: 'post',
    path: '/v1/capsules/{id}/members',
    tag: 'capsules',
    summary: 'Add a person to a capsule',
    credential: 'org',
    params: S.IdParam,
    body: S.CapsuleMemberRequest,
    ok: { status: 201, schema: S.CapsuleMember, description: 'added' },
    errors: [400, 401, 403, 404, 409],
    handle: ({ service, principal, params, body }) => service.addCapsuleMember(principal, params.id, body),
  }),
  endpoint({
    operationId: 'addCapsuleAiGrant',
    method: 'post',
    path: '/v1/capsules/{id}/ai-grants',
    tag: 'capsules',
    summary: 'Let an agent read a capsule’s documents',
    credential: 'org',
    params: S.IdParam,
    body: S.CapsuleAiGrantRequest,
    ok: { status: 201, schema: S.CapsuleAiGrant, description: 'granted' },
    errors: [400, 401, 403, 404, 409],
    handle: ({ service, principal, params, body }) => service.addCapsuleAiGrant(principal, params.id, body),
  }),
  endpoint({
    operationId: 'revokeCapsule',
    method: 'post',
    path: '/v1/capsules/{id}/revoke',
    tag: 'capsules',
    summary: 'Turn every access to a capsule off',
    credential: 'org',
    params: S.IdParam,
    ok: { status: 200, schema: S.CapsuleRevoked, description: 'revoked and receipted (idempotent)' },
    errors: [401, 403, 404],
    handle: ({ service, principal, params }) => service.revokeCapsule(principal, params.id),
  }),

  // ---------------------------------------------------------------- second group: recovery, usage
  endpoint({
    operationId: 'setRecoveryKey',
    method: 'post',
    path: '/v1/recovery/pubkey',
    tag: 'recovery',
    summary: 'Set the public key derived from the 12-word phrase',
    credential: 'org',
    body: S.RecoveryPubkeyRequest,
    ok: { status: 201, schema: S.RecoveryPubkeyResponse, description: 'set' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.setRecoveryKey(principal, body.pubkey_hex),
  }),
  endpoint({
    operationId: 'storeRecoveryCopy',
    method: 'post',
    path: '/v1/recovery/copy',
    tag: 'recovery',
    summary: 'Store a vault backup sealed to the recovery key',
    credential: 'org',
    body: S.RecoveryCopyRequest,
    ok: { status: 201, schema: S.RecoveryCopy, description: 'stored' },
    errors: [400, 401, 403, 409],
    handle: ({ service, principal, body }) => service.storeRecoveryCopy(principal, body),
  }),
  endpoint({
    operationId: 'recordRecoveryEvent',
    method: 'post',
    path: '/v1/recovery/event',
    tag: 'recovery',
    summary: 'Record a recovery event',
    credential: 'org',
    body: S.RecoveryEventRequest,
    ok: { status: 201, schema: S.RecoveryEvent, description: 'recorded' },
    errors: [400, 401, 403],
    handle: ({ service, principal, body }) => service.recordRecoveryEvent(principal, body),
  }),
  endpoint({
    operationId: 'getRecoveryState',
    method: 'get',
    path: '/v1/recovery/state',
    tag: 'recovery',
    summary: 'Recovery state',
    credential: 'org',
    ok: { status: 200, schema: S.RecoveryState, description: 'the key, the copies and recent events' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.recoveryState(principal),
  }),
  endpoint({
    operationId: 'getOverview',
    method: 'get',
    path: '/v1/overview',
    tag: 'usage',
    summary: 'The usage meter and what the organization holds',
    credential: 'org',
    ok: { status: 200, schema: S.OverviewSchema, description: 'overview' },
    errors: [401, 403],
    handle: ({ service, principal }) => service.overview(principal),
  }),
  endpoint({
    operationId: 'getInvoice',
    method: 'get',
    path: '/v1/usage/invoice',
    tag: 'usage',
    summary: 'Decisions this period against the free allowance',
    credential: 'org',
    query: S.InvoiceQuery,
    ok: { status: 200, schema: S.InvoiceSchema, description: 'invoice' },
    errors: [400, 401, 403],
    handle: ({ service, principal, query }) => service.invoice(principal, query.period),
  }),
];
