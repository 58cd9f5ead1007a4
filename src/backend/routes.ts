// The HTTP binding of each operation, as data: method, path, where the input comes from, the
// documented statuses. The HTTP adapter serves these; the remote backend calls them. No HTTP
// library is loaded here.
import { z } from 'zod';
import { ErrorBody, HandleParam } from './operations/common.ts';
import {
  ComputeQuery,
  ComputeRequest,
  GrantRequest,
  LoadRowsRequest,
  ProofsQuery,
  ReadRequest,
  RetrieveRequest,
  RevokeRequest,
  ScopeViolation,
  TableParam,
  TableSchema,
} from './operations/governance.ts';
import {
  EnrollChallengeRequest,
  EnrollRequest,
  FabricDenied,
  FabricGrantRequest,
  FabricKeyParams,
  FabricRevokeRequest,
  FetchRequest,
  SendRequest,
} from './operations/fabric.ts';
import {
  CapsuleAiGrantRequest,
  CapsuleCreateRequest,
  CapsuleDocumentRequest,
  CapsuleMemberRequest,
  DocumentsRequest,
  IdParam,
  RecoveryCopyRequest,
  RecoveryEventRequest,
  RecoveryPubkeyRequest,
} from './operations/documents.ts';
import {
  ConnectPollRequest,
  ConnectStart,
  ConnectStartRequest,
  NodeRequest,
  TermsAcceptRequest,
  TermsVersionParam,
} from './operations/setup.ts';
import { SourceCallRequest, SourceNameParam, SourceRequest, UseRequest } from './operations/sources.ts';
import { InvoiceQuery, ProofParam, VerifyRequest } from './operations/proofs.ts';
import type { Operation } from './operation.ts';
import {
  CONNECT_STARTS_PER_CLIENT,
  EXPOSURE_REQUESTS_PER_CLIENT,
  LINK_OPENS_PER_CLIENT,
} from './vocabulary.ts';
import { ops } from './operations/index.ts';
import { AddRulesRequest, RuleIdParam } from './operations/rules.ts';
import {
  PatchIdParam,
  PatchListQuery,
  RejectPatchRequest,
  SubmitPatchRequest,
} from './operations/patches.ts';
import { ApplyPlanRequest, FeedbackIdParam, ScanIdParam } from './operations/scans.ts';
import {
  CreateLinkRequest,
  LinkIdParam,
  LinksQuery,
  OpenLinkRequest,
  RevokeLinkRequest,
} from './operations/links.ts';
import { CopyExposedFileRequest, ExposureIdParam } from './operations/exposures.ts';

export interface RouteRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

export interface Route<I = unknown, R = unknown> {
  operation: Operation<I, R>;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  /** The OpenAPI operationId when an operation has more than one route (default: its name). */
  operationId?: string;
  tag: string;
  /** Not in the specification: marked `x-svc-extension` in the OpenAPI document. */
  extension?: boolean;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  ok: { status: 200 | 201; description: string };
  /** What the route answers when `present` changes the operation's result. */
  response?: z.ZodType;
  /**
   * Documented error statuses. The HTTP adapter adds 400 to every route that validates path
   * parameters, a query or a body, and 413 and 415 to every route with a body.
   */
  errors: number[];
  /** Error statuses whose body carries more than the common error fields. */
  errorBodies?: Record<number, { schema: z.ZodType; description: string }>;
  /** The operation's input from a validated request (default: params, query and body merged). */
  toInput?(request: RouteRequest): I | Promise<I>;
  /** The request that carries an input (default: the params' and query's keys, the rest as body). */
  fromInput?(input: I): RouteRequest;
  /** The answer as sent, given `scheme://host` of the request (for URLs it hands back). */
  present?(result: Awaited<R>, origin: string): unknown;
  /**
   * Requests each client address may send (an operation anyone may call that stores something):
   * `burst` at once, then one more every `refillSeconds`; beyond that 429 `rate_limited`.
   */
  perClient?: { burst: number; refillSeconds: number };
}

/** Types one binding against its operation. */
function route<I, R>(spec: Route<I, R>): Route {
  return spec as unknown as Route;
}

export const ROUTES: readonly Route[] = [
  // ---------------------------------------------------------------- first group: governance
  route({
    operation: ops.createGrant,
    method: 'post',
    path: '/api/v1/governance/grant',
    tag: 'governance',
    body: GrantRequest,
    ok: { status: 201, description: 'agent and grant created; grant_token is shown once' },
    errors: [400, 401, 403],
    present: (result, origin) => ({ ...result, read_url: origin + result.read_url }),
  }),
  route({
    operation: ops.listAgents,
    method: 'get',
    path: '/api/v1/agents',
    tag: 'governance',
    ok: { status: 200, description: 'agents of this organization' },
    errors: [401, 403],
  }),
  route({
    operation: ops.revokeAgent,
    method: 'post',
    path: '/api/v1/governance/revoke',
    tag: 'governance',
    extension: true,
    body: RevokeRequest,
    ok: { status: 200, description: 'revoked; receipted when anything changed' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.computeDecision,
    method: 'post',
    path: '/api/access/compute',
    tag: 'governance',
    query: ComputeQuery,
    body: ComputeRequest,
    ok: { status: 200, description: 'the decision' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.readRows,
    method: 'post',
    path: '/api/access/read',
    operationId: 'readOwnRows',
    tag: 'governance',
    extension: true,
    body: ReadRequest,
    ok: { status: 200, description: 'rows and the audit reference; the agent is the token’s own' },
    errors: [400, 401, 404],
    errorBodies: {
      403: {
        schema: z.union([ScopeViolation, ErrorBody]),
        description: 'scope_violation (denied_columns, audit)',
      },
    },
    fromInput: ({ handle: _own, ...read }) => ({ params: {}, query: {}, body: read }),
  }),
  route({
    operation: ops.readRows,
    method: 'post',
    path: '/api/agents/{handle}/read',
    tag: 'governance',
    params: HandleParam,
    body: ReadRequest,
    ok: { status: 200, description: 'rows and the audit reference' },
    errors: [400, 401, 404],
    errorBodies: {
      403: {
        schema: z.union([ScopeViolation, ErrorBody]),
        description: 'scope_violation (denied_columns, audit), or another agent’s token',
      },
    },
  }),

  // ---------------------------------------------------------------- first group: Fabric
  route({
    operation: ops.requestEnrollChallenge,
    method: 'post',
    path: '/api/agents/{handle}/fabric/enroll/challenge',
    tag: 'fabric',
    extension: true,
    params: HandleParam,
    body: EnrollChallengeRequest,
    ok: { status: 200, description: 'a challenge sealed to the key; its opened text is the proof' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.enrollFabric,
    method: 'post',
    path: '/api/agents/{handle}/fabric/enroll',
    tag: 'fabric',
    params: HandleParam,
    body: EnrollRequest,
    ok: { status: 200, description: 'enrolled' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.listFabricGrants,
    method: 'get',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    ok: { status: 200, description: 'grants' },
    errors: [401, 403],
  }),
  route({
    operation: ops.createFabricGrant,
    method: 'post',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    body: FabricGrantRequest,
    ok: { status: 201, description: 'granted and receipted' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.revokeFabricGrant,
    method: 'patch',
    path: '/api/v1/fabric-grants',
    tag: 'fabric',
    body: FabricRevokeRequest,
    ok: { status: 200, description: 'revoked and receipted (idempotent)' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.sendEnvelope,
    method: 'post',
    path: '/api/agents/{handle}/fabric/send',
    tag: 'fabric',
    params: HandleParam,
    body: SendRequest,
    ok: { status: 200, description: 'stored and receipted' },
    errors: [400, 401, 403, 404, 412, 429],
  }),
  route({
    operation: ops.listInbox,
    method: 'get',
    path: '/api/agents/{handle}/fabric/inbox',
    tag: 'fabric',
    params: HandleParam,
    ok: { status: 200, description: 'metadata only; no ciphertext, no wrapped key' },
    errors: [401, 403, 412],
  }),
  route({
    operation: ops.listFabricSenders,
    method: 'get',
    path: '/api/agents/{handle}/fabric/senders',
    tag: 'fabric',
    extension: true,
    params: HandleParam,
    ok: { status: 200, description: 'the grants naming this agent’s address, with their allowlists' },
    errors: [401, 403, 412],
  }),
  route({
    operation: ops.getFabricKey,
    method: 'get',
    path: '/api/agents/{handle}/fabric/keys/{kid}',
    tag: 'fabric',
    extension: true,
    params: FabricKeyParams,
    ok: { status: 200, description: 'the public key enrolled at the address' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.fetchEnvelope,
    method: 'post',
    path: '/api/agents/{handle}/fabric/fetch',
    tag: 'fabric',
    params: HandleParam,
    body: FetchRequest,
    ok: { status: 200, description: 'allowed: sealed parts released after the allow receipt' },
    errors: [400, 401, 404, 410],
    errorBodies: {
      403: {
        schema: z.union([FabricDenied, ErrorBody]),
        description: 'fabric_denied with reasons and the receipt of the signed denial',
      },
    },
  }),

  // ---------------------------------------------------------------- tables (extension)
  route({
    operation: ops.listTables,
    method: 'get',
    path: '/api/v1/tables',
    tag: 'tables',
    extension: true,
    ok: { status: 200, description: 'tables' },
    errors: [401, 403],
  }),
  route({
    operation: ops.registerTable,
    method: 'post',
    path: '/api/v1/tables',
    tag: 'tables',
    extension: true,
    body: TableSchema,
    ok: { status: 201, description: 'registered' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.loadRows,
    method: 'post',
    path: '/api/v1/tables/{name}/rows',
    tag: 'tables',
    extension: true,
    params: TableParam,
    body: LoadRowsRequest,
    ok: { status: 200, description: 'loaded' },
    errors: [400, 401, 403, 404, 409],
    // CSV is read here, at the edge; the CSV reader loads only when a CSV body arrives.
    toInput: async ({ params, body }) => {
      const rows = body as z.infer<typeof LoadRowsRequest>;
      return {
        name: String(params.name),
        rows: rows.format === 'json' ? rows.rows : (await import('./csv.ts')).parseCsv(rows.csv),
      };
    },
    fromInput: ({ name, rows }) => ({ params: { name }, query: {}, body: { format: 'json', rows } }),
  }),

  // ---------------------------------------------------------------- extensions the MCP tools use over HTTP
  route({
    operation: ops.whoami,
    method: 'get',
    path: '/api/v1/whoami',
    tag: 'governance',
    extension: true,
    ok: { status: 200, description: 'the caller' },
    errors: [401],
  }),
  route({
    operation: ops.getPolicyBoard,
    method: 'get',
    path: '/api/v1/policy',
    tag: 'governance',
    extension: true,
    ok: { status: 200, description: 'the board' },
    errors: [401, 403],
  }),
  route({
    operation: ops.listProofs,
    method: 'get',
    path: '/api/v1/proofs',
    tag: 'proofs',
    extension: true,
    query: ProofsQuery,
    ok: { status: 200, description: 'one page of receipts' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.retrieve,
    method: 'post',
    path: '/api/access/retrieve',
    tag: 'governance',
    extension: true,
    body: RetrieveRequest,
    ok: { status: 200, description: 'the plan, the allowed rows and the audit row' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.registerNode,
    method: 'post',
    path: '/api/v1/nodes',
    tag: 'governance',
    extension: true,
    body: NodeRequest,
    ok: { status: 200, description: 'the node' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.acceptTerms,
    method: 'post',
    path: '/api/v1/terms',
    tag: 'governance',
    extension: true,
    body: TermsAcceptRequest,
    ok: { status: 200, description: 'accepted (idempotent)' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.getTerms,
    method: 'get',
    path: '/api/v1/terms',
    tag: 'governance',
    extension: true,
    ok: { status: 200, description: 'the terms in force and their acceptance' },
    errors: [401, 403],
  }),
  route({
    operation: ops.getTermsAcceptance,
    method: 'get',
    path: '/api/v1/terms/{version}',
    tag: 'governance',
    extension: true,
    params: TermsVersionParam,
    ok: { status: 200, description: 'the acceptance, or null' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.useCapability,
    method: 'post',
    path: '/api/access/use',
    tag: 'sources',
    extension: true,
    body: UseRequest,
    ok: { status: 200, description: "the API's answer, credential masked" },
    errors: [400, 401, 403, 404, 410],
    errorBodies: {
      403: {
        schema: ErrorBody,
        description: 'scope_violation with denied_capability, or the wrong credential',
      },
    },
  }),
  route({
    operation: ops.registerSource,
    method: 'post',
    path: '/api/v1/sources',
    tag: 'sources',
    extension: true,
    body: SourceRequest,
    ok: { status: 201, description: 'registered' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.listSources,
    method: 'get',
    path: '/api/v1/sources',
    tag: 'sources',
    extension: true,
    ok: { status: 200, description: 'sources' },
    errors: [401, 403],
  }),
  route({
    operation: ops.callSource,
    method: 'post',
    path: '/api/v1/sources/{name}/call',
    tag: 'sources',
    extension: true,
    params: SourceNameParam,
    body: SourceCallRequest,
    ok: { status: 200, description: "the API's answer" },
    errors: [400, 401, 403, 404, 410],
    toInput: ({ params, body }) => ({
      ...(body as z.infer<typeof SourceCallRequest>),
      source: String(params.name),
    }),
    fromInput: ({ source, ...call }) => ({ params: { name: source }, query: {}, body: call }),
  }),
  route({
    operation: ops.listRules,
    method: 'get',
    path: '/api/v1/rules',
    tag: 'rules',
    extension: true,
    ok: { status: 200, description: "the organization's file and folder rules" },
    errors: [401, 403],
  }),
  route({
    operation: ops.addRules,
    method: 'post',
    path: '/api/v1/rules',
    tag: 'rules',
    extension: true,
    body: AddRulesRequest,
    ok: { status: 201, description: 'added, all of them, with a receipt' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.removeRule,
    method: 'delete',
    path: '/api/v1/rules/{rule_id}',
    tag: 'rules',
    extension: true,
    params: RuleIdParam,
    ok: { status: 200, description: 'removed, with a receipt' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.submitPatch,
    method: 'post',
    path: '/api/v1/patches',
    tag: 'patches',
    extension: true,
    body: SubmitPatchRequest,
    ok: { status: 201, description: 'queued for the owner, with a receipt' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.listPatches,
    method: 'get',
    path: '/api/v1/patches',
    tag: 'patches',
    extension: true,
    query: PatchListQuery,
    ok: { status: 200, description: "the organization's patches" },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.approvePatch,
    method: 'post',
    path: '/api/v1/patches/{patch_id}/approve',
    tag: 'patches',
    extension: true,
    params: PatchIdParam,
    ok: { status: 200, description: 'applied, with a receipt' },
    errors: [400, 401, 403, 404, 409],
  }),
  route({
    operation: ops.rejectPatch,
    method: 'post',
    path: '/api/v1/patches/{patch_id}/reject',
    tag: 'patches',
    extension: true,
    params: PatchIdParam,
    body: RejectPatchRequest,
    ok: { status: 200, description: 'rejected, with a receipt' },
    errors: [400, 401, 403, 404, 409],
  }),
  route({
    operation: ops.listScanFeedback,
    method: 'get',
    path: '/api/v1/scan-feedback',
    tag: 'scans',
    extension: true,
    ok: { status: 200, description: "the organization's verdicts on findings" },
    errors: [401, 403],
  }),
  route({
    operation: ops.promoteScanFeedback,
    method: 'post',
    path: '/api/v1/scan-feedback/{feedback_id}/promote',
    tag: 'scans',
    extension: true,
    params: FeedbackIdParam,
    ok: { status: 201, description: "the organization's verdict, with a receipt" },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.applyScanPlan,
    method: 'post',
    path: '/api/v1/scans/{scan_id}/plan/apply',
    tag: 'scans',
    extension: true,
    params: ScanIdParam,
    body: ApplyPlanRequest,
    ok: { status: 201, description: 'the rules added, with a receipt' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.startConnect,
    method: 'post',
    path: '/api/v1/connect/device',
    tag: 'governance',
    extension: true,
    body: ConnectStartRequest,
    ok: { status: 200, description: 'codes, the approval page and the polling interval' },
    response: ConnectStart,
    errors: [400, 429],
    present: (started, origin) => ({ ...started, verification_uri: origin + started.verification_path }),
    perClient: CONNECT_STARTS_PER_CLIENT,
  }),
  route({
    operation: ops.pollConnect,
    method: 'post',
    path: '/api/v1/connect/token',
    tag: 'governance',
    extension: true,
    body: ConnectPollRequest,
    ok: { status: 200, description: 'the state' },
    errors: [400, 404, 410],
  }),

  // ---------------------------------------------------------------- second group: documents, proofs
  route({
    operation: ops.computeDocuments,
    method: 'post',
    path: '/v1/documents/compute',
    tag: 'documents',
    body: DocumentsRequest,
    ok: { status: 200, description: 'decision, answer and its signed proof' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.verifyProof,
    method: 'post',
    path: '/access/verify',
    tag: 'proofs',
    body: VerifyRequest,
    ok: { status: 200, description: 'the verdict; unknown or altered proofs are never true' },
    errors: [400],
  }),
  route({
    operation: ops.getProof,
    method: 'get',
    path: '/access/proofs/{id}',
    tag: 'proofs',
    extension: true,
    params: ProofParam,
    ok: { status: 200, description: 'the receipt with its payload' },
    errors: [400, 404],
  }),
  route({
    operation: ops.getPublishedKeys,
    method: 'get',
    path: '/.well-known/svc-keys.json',
    tag: 'proofs',
    extension: true,
    ok: { status: 200, description: 'published keys' },
    errors: [403],
  }),

  // ---------------------------------------------------------------- second group: capsules
  route({
    operation: ops.createCapsule,
    method: 'post',
    path: '/v1/capsules',
    tag: 'capsules',
    body: CapsuleCreateRequest,
    ok: { status: 201, description: 'created' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.listCapsules,
    method: 'get',
    path: '/v1/capsules',
    tag: 'capsules',
    ok: { status: 200, description: 'capsules' },
    errors: [401, 403],
  }),
  route({
    operation: ops.getCapsule,
    method: 'get',
    path: '/v1/capsules/{id}',
    tag: 'capsules',
    params: IdParam,
    ok: { status: 200, description: 'the capsule with its documents, members and AI grants' },
    errors: [401, 403, 404],
  }),
  route({
    operation: ops.addCapsuleDocument,
    method: 'post',
    path: '/v1/capsules/{id}/documents',
    tag: 'capsules',
    params: IdParam,
    body: CapsuleDocumentRequest,
    ok: { status: 201, description: 'sealed' },
    errors: [400, 401, 403, 404, 409],
  }),
  route({
    operation: ops.addCapsuleMember,
    method: 'post',
    path: '/v1/capsules/{id}/members',
    tag: 'capsules',
    params: IdParam,
    body: CapsuleMemberRequest,
    ok: { status: 201, description: 'added' },
    errors: [400, 401, 403, 404, 409],
  }),
  route({
    operation: ops.addCapsuleAiGrant,
    method: 'post',
    path: '/v1/capsules/{id}/ai-grants',
    tag: 'capsules',
    params: IdParam,
    body: CapsuleAiGrantRequest,
    ok: { status: 201, description: 'granted' },
    errors: [400, 401, 403, 404, 409],
  }),
  route({
    operation: ops.revokeCapsule,
    method: 'post',
    path: '/v1/capsules/{id}/revoke',
    tag: 'capsules',
    params: IdParam,
    ok: { status: 200, description: 'revoked and receipted (idempotent)' },
    errors: [401, 403, 404],
  }),

  // ---------------------------------------------------------------- second group: recovery, usage
  route({
    operation: ops.setRecoveryKey,
    method: 'post',
    path: '/v1/recovery/pubkey',
    tag: 'recovery',
    body: RecoveryPubkeyRequest,
    ok: { status: 201, description: 'set' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.storeRecoveryCopy,
    method: 'post',
    path: '/v1/recovery/copy',
    tag: 'recovery',
    body: RecoveryCopyRequest,
    ok: { status: 201, description: 'stored' },
    errors: [400, 401, 403, 409],
  }),
  route({
    operation: ops.recordRecoveryEvent,
    method: 'post',
    path: '/v1/recovery/event',
    tag: 'recovery',
    body: RecoveryEventRequest,
    ok: { status: 201, description: 'recorded' },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.getRecoveryState,
    method: 'get',
    path: '/v1/recovery/state',
    tag: 'recovery',
    ok: { status: 200, description: 'the key, the copies and recent events' },
    errors: [401, 403],
  }),
  route({
    operation: ops.getOverview,
    method: 'get',
    path: '/v1/overview',
    tag: 'usage',
    ok: { status: 200, description: 'overview' },
    errors: [401, 403],
  }),
  route({
    operation: ops.getInvoice,
    method: 'get',
    path: '/v1/usage/invoice',
    tag: 'usage',
    query: InvoiceQuery,
    ok: { status: 200, description: 'invoice' },
    errors: [400, 401, 403],
  }),
  // ---------------------------------------------------------------- share links (docs/SHARE.md)
  route({
    operation: ops.createLink,
    method: 'post',
    path: '/api/v1/links',
    tag: 'links',
    extension: true,
    body: CreateLinkRequest,
    ok: { status: 201, description: 'kept and receipted; the link is the page path plus `#` and the key' },
    errors: [400, 401, 403, 429],
  }),
  route({
    operation: ops.listLinks,
    method: 'get',
    path: '/api/v1/links',
    tag: 'links',
    extension: true,
    query: LinksQuery,
    ok: { status: 200, description: "the organization's links, newest first" },
    errors: [400, 401, 403],
  }),
  route({
    operation: ops.linkStatus,
    method: 'get',
    path: '/api/v1/links/{link_id}',
    tag: 'links',
    extension: true,
    params: LinkIdParam,
    ok: { status: 200, description: 'the link and every open attempt with its receipt' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.burnLink,
    method: 'post',
    path: '/api/v1/links/{link_id}/burn',
    tag: 'links',
    extension: true,
    params: LinkIdParam,
    ok: { status: 200, description: 'destroyed, with a receipt (or already ended)' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.revokeLink,
    method: 'post',
    path: '/api/v1/links/{link_id}/revoke',
    tag: 'links',
    extension: true,
    params: LinkIdParam,
    body: RevokeLinkRequest,
    ok: { status: 200, description: 'revoked by policy, with a receipt (or already ended)' },
    errors: [400, 401, 403, 404],
  }),
  route({
    operation: ops.viewLink,
    method: 'get',
    path: '/s/{link_id}/info',
    tag: 'links',
    extension: true,
    params: LinkIdParam,
    ok: { status: 200, description: 'what the link holds, without content; counts nothing' },
    errors: [400, 404],
  }),
  route({
    operation: ops.openLink,
    method: 'post',
    path: '/s/{link_id}/open',
    tag: 'links',
    extension: true,
    params: LinkIdParam,
    body: OpenLinkRequest,
    ok: { status: 200, description: 'the ciphertext, released after its allow receipt' },
    errors: [400, 403, 404, 410, 429],
    perClient: LINK_OPENS_PER_CLIENT,
  }),
  // ---------------------------------------------------------------- exposures (docs/SHARE.md)
  // The owner's side is `local`; these are the partner's, under the link the owner hands out.
  route({
    operation: ops.listExposedFiles,
    method: 'get',
    path: '/x/{exposure_id}/files',
    tag: 'exposures',
    extension: true,
    params: ExposureIdParam,
    ok: {
      status: 200,
      description: 'the files the read gate lets a partner have, and a nonce; counts nothing',
    },
    errors: [400, 403, 404, 410, 429],
    perClient: EXPOSURE_REQUESTS_PER_CLIENT,
  }),
  route({
    operation: ops.copyExposedFile,
    method: 'post',
    path: '/x/{exposure_id}/copy',
    tag: 'exposures',
    extension: true,
    params: ExposureIdParam,
    body: CopyExposedFileRequest,
    ok: { status: 200, description: 'the clean copy of one listed file, made now, after its receipt' },
    errors: [400, 403, 404, 410, 415, 429],
    perClient: EXPOSURE_REQUESTS_PER_CLIENT,
  }),
];

/** Operations served by something other than a JSON route (the approval page), or not at all. */
export const UNROUTED = new Set(['describeConnect', 'approveConnect', 'denyConnect']);

/**
 * The route that carries an input: of an operation's routes whose path parameters the input all
 * names, the one naming the most (reading rows has one with the agent's handle and one for the
 * token's own agent, and a named handle must reach the route that checks it).
 */
export function routeOf(operation: Operation, input: unknown): Route | undefined {
  const names = (r: Route) => Object.keys(r.params?.shape ?? {});
  const carries = (r: Route) => {
    const { params } = requestOf(r, input);
    return names(r).every((key) => params[key] !== undefined);
  };
  return ROUTES.filter((r) => r.operation === operation && carries(r))
    .sort((a, b) => names(b).length - names(a).length)
    .at(0);
}

/** The merged input of a validated request. */
export async function inputOf(route: Route, request: RouteRequest): Promise<unknown> {
  if (route.toInput) return route.toInput(request);
  return { ...request.params, ...request.query, ...(request.body as object | undefined) };
}

/** Splits an input into the request that carries it. */
export function requestOf(route: Route, input: unknown): RouteRequest {
  if (route.fromInput) return route.fromInput(input);
  const all = { ...(input as Record<string, unknown>) };
  const take = (schema: z.ZodObject | undefined) => {
    const taken: Record<string, unknown> = {};
    for (const key of Object.keys(schema?.shape ?? {})) {
      if (all[key] !== undefined) taken[key] = all[key];
      delete all[key];
    }
    return taken;
  };
  const params = take(route.params);
  const query = take(route.query);
  return { params, query, body: route.body ? all : undefined };
}
