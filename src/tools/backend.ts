// Where the tools' service lives: in this process over the local store (default), or a remote
// `svc serve` over HTTP when SVC_BASE_URL is set. Both speak the same interface, and one contract
// test suite runs the tools against both.
import type { Service } from '../backend/service.ts';
import type { ComputeInput, GrantInput, ReadInput } from '../backend/governance.ts';
import type { TableInfo } from '../backend/tables.ts';
import type { MachineFacts, Terms } from '../backend/setup.ts';
import type { CallInput, SourceInput } from '../backend/sources.ts';
import { SvcClient } from '../sdk/client.ts';
import { startServer, type RunningServer } from '../backend/http/server.ts';

type Out<K extends keyof Service> = Service[K] extends (...args: never[]) => infer R ? Awaited<R> : never;

export type Whoami = Out<'whoami'>;

export interface Backend {
  readonly location:
    | {
        kind: 'local';
        data_dir: string;
        key_store: string;
        key_store_kind: 'keychain' | 'file';
        key_store_note: string | null;
      }
    | { kind: 'remote'; base_url: string };
  whoami(bearer: string): Promise<Whoami>;
  agentCount(bearer: string): Promise<number>;
  tableNames(bearer: string): Promise<string[]>;
  createGrant(bearer: string, input: GrantInput): Promise<Out<'createGrant'>>;
  revokeAgent(bearer: string, target: string): Promise<Out<'revokeAgent'>>;
  policyBoard(bearer: string): Promise<Out<'policyBoard'>>;
  registerTable(bearer: string, table: TableInfo): Promise<Out<'registerTable'>>;
  listProofs(bearer: string, options: { limit?: number; before?: number }): Promise<Out<'listProofs'>>;
  verify(proofId: string): Promise<Out<'verify'>>;
  compute(bearer: string, input: ComputeInput): Promise<Out<'compute'>>;
  read(bearer: string, input: ReadInput): Promise<Out<'read'>>;
  retrieve(bearer: string, input: Partial<ReadInput>): Promise<Out<'retrieve'>>;
  registerNode(bearer: string, facts: MachineFacts): Promise<Out<'registerNode'>>;
  acceptTerms(bearer: string, terms: Terms): Promise<Out<'acceptTerms'>>;
  termsAcceptance(bearer: string, version: string): Promise<Out<'termsAcceptance'>>;
  registerSource(bearer: string, input: SourceInput): Promise<Out<'registerSource'>>;
  listSources(bearer: string): Promise<Out<'listSources'>>;
  callSource(bearer: string, input: CallInput): Promise<Out<'callSource'>>;
  useCapability(bearer: string, input: CallInput): Promise<Out<'useCapability'>>;
  /** Starts linking this computer; the verification URI is on a service the browser can reach. */
  startConnect(machine: MachineFacts): Promise<ConnectStart>;
  pollConnect(deviceCode: string): Promise<Out<'pollConnect'>>;
}

export interface ConnectStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  expires_in: number;
  interval: number;
}

/** The service in this process: every call authenticates the bearer, then calls the core. */
export function localBackend(service: Service): Backend {
  const as = (bearer: string) => service.authenticate(bearer);
  let approvalServer: Promise<RunningServer> | undefined;
  return {
    location: {
      kind: 'local',
      data_dir: service.dataDir,
      key_store: service.ctx.vault.location,
      key_store_kind: service.vaultKind,
      key_store_note: service.vaultFallbackReason,
    },
    whoami: async (b) => service.whoami(as(b)),
    agentCount: async (b) => service.listAgents(as(b)).count,
    tableNames: async (b) => service.listTables(as(b)).tables.map((t) => t.name),
    createGrant: async (b, input) => service.createGrant(as(b), input),
    revokeAgent: async (b, target) => service.revokeAgent(as(b), target),
    policyBoard: async (b) => service.policyBoard(as(b)),
    registerTable: async (b, table) => service.registerTable(as(b), table),
    listProofs: async (b, options) => service.listProofs(as(b), options),
    verify: async (id) => service.verify(id),
    compute: async (b, input) => service.compute(as(b), input, true),
    read: async (b, input) => {
      const principal = as(b);
      return service.read(principal, principal.kind === 'agent' ? principal.handle : '', input);
    },
    retrieve: async (b, input) => service.retrieve(as(b), input),
    registerNode: async (b, facts) => service.registerNode(as(b), facts),
    acceptTerms: async (b, terms) => service.acceptTerms(as(b), terms),
    termsAcceptance: async (b, version) => service.termsAcceptance(as(b), version),
    registerSource: async (b, input) => service.registerSource(as(b), input),
    listSources: async (b) => service.listSources(as(b)),
    callSource: (b, input) => service.callSource(as(b), input),
    useCapability: (b, input) => service.useCapability(as(b), input),
    startConnect: async (machine) => {
      // No `svc serve` is needed: the approval page is served from this process, on loopback,
      // for as long as it runs.
      approvalServer ??= startServer({ service, port: 0, closeService: false });
      const started = service.startConnect(machine);
      return { ...started, verification_uri: (await approvalServer).url + started.verification_path };
    },
    pollConnect: async (deviceCode) => service.pollConnect(deviceCode),
  };
}

/** A remote `svc serve`: the same calls over its HTTP API (undici), errors as SvcApiError. */
export function remoteBackend(baseUrl: string): Backend {
  const client = (bearer?: string) =>
    new SvcClient({ baseUrl, ...(bearer ? { token: bearer.replace(/^Bearer /, '') } : {}) });
  return {
    location: { kind: 'remote', base_url: baseUrl },
    whoami: (b) => client(b).call('GET', '/api/v1/whoami'),
    agentCount: async (b) => (await client(b).call<{ count: number }>('GET', '/api/v1/agents')).count,
    tableNames: async (b) =>
      (await client(b).call<{ tables: { name: string }[] }>('GET', '/api/v1/tables')).tables.map(
        (t) => t.name,
      ),
    createGrant: (b, input) => client(b).call('POST', '/api/v1/governance/grant', input),
    revokeAgent: (b, target) => client(b).call('POST', '/api/v1/governance/revoke', { target }),
    policyBoard: (b) => client(b).call('GET', '/api/v1/policy'),
    registerTable: (b, table) => client(b).call('POST', '/api/v1/tables', table),
    listProofs: (b, options) => {
      const query = new URLSearchParams(
        Object.entries(options)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, String(v)] as [string, string]),
      );
      return client(b).call('GET', `/api/v1/proofs${query.size ? `?${query}` : ''}`);
    },
    verify: (id) => client().call('POST', '/access/verify', { proof_id: id }),
    compute: (b, input) => client(b).call('POST', '/api/access/compute?receipt=true', input),
    read: async (b, input) => {
      const me = await client(b).call<{ handle?: string }>('GET', '/api/v1/whoami');
      return client(b).call('POST', `/api/agents/${encodeURIComponent(me.handle ?? '')}/read`, input);
    },
    retrieve: (b, input) => client(b).call('POST', '/api/access/retrieve', input),
    registerNode: (b, facts) => client(b).call('POST', '/api/v1/nodes', facts),
    acceptTerms: (b, terms) => client(b).call('POST', '/api/v1/terms', terms),
    termsAcceptance: async (b, version) =>
      (
        await client(b).call<{ acceptance: Out<'termsAcceptance'> }>(
          'GET',
          `/api/v1/terms/${encodeURIComponent(version)}`,
        )
      ).acceptance,
    registerSource: (b, input) => client(b).call('POST', '/api/v1/sources', input),
    listSources: (b) => client(b).call('GET', '/api/v1/sources'),
    callSource: (b, { source, ...call }) =>
      client(b).call('POST', `/api/v1/sources/${encodeURIComponent(source)}/call`, call),
    useCapability: (b, input) => client(b).call('POST', '/api/access/use', input),
    startConnect: (machine) => client().call('POST', '/api/v1/connect/device', machine),
    pollConnect: (deviceCode) => client().call('POST', '/api/v1/connect/token', { device_code: deviceCode }),
  };
}
