// Setup operations and the zod schemas they take and answer: this machine as a node, the terms,
// and linking a computer by browser approval (RFC 8628 device authorization).
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { ShortText } from './common.ts';

const setup = lazily(() => import('../setup.ts'));
const connect = lazily(() => import('../connect.ts'));

export const NodeRequest = z
  .object({
    machine_id: z.string().regex(/^[0-9a-f]{32}$/, 'machine_id is 32 lowercase hex characters'),
    hostname: ShortText(255),
    platform: ShortText(32),
    arch: ShortText(32),
  })
  .strict()
  .register(apiDoc, { id: 'NodeRequest' });

export const NodeRegistration = z
  .object({
    node: z.object({
      node_id: z.string(),
      machine_id: z.string(),
      hostname: z.string(),
      platform: z.string(),
      arch: z.string(),
      registered_at: z.string(),
      last_seen_at: z.string(),
    }),
    newly_registered: z.boolean(),
    organization_nodes: z.number().int(),
  })
  .register(apiDoc, { id: 'NodeRegistration' });

export const TermsAcceptRequest = z
  .object({ version: z.string().regex(/^[0-9A-Za-z.-]{1,32}$/), text: z.string().min(1).max(100_000) })
  .strict()
  .register(apiDoc, { id: 'TermsAcceptRequest' });

export const TermsAcceptance = z
  .object({
    version: z.string(),
    sha256: z.string(),
    accepted_at: z.string(),
    receipt_id: z.string(),
    newly_accepted: z.boolean(),
  })
  .register(apiDoc, { id: 'TermsAcceptance' });

export const CurrentTerms = z
  .object({
    version: z.string(),
    sha256: z.string(),
    text: z.string(),
    accepted: z.boolean(),
    accepted_at: z.string().nullable(),
    receipt_id: z.string().nullable(),
  })
  .register(apiDoc, { id: 'CurrentTerms' });

export const TermsVersionParam = z.object({
  version: z
    .string()
    .regex(/^[0-9A-Za-z.-]{1,32}$/)
    .register(apiDoc, { param: { name: 'version', in: 'path' } }),
});

export const TermsState = z
  .object({
    version: z.string(),
    acceptance: z.object({ accepted_at: z.string(), receipt_id: z.string() }).nullable(),
  })
  .register(apiDoc, { id: 'TermsState' });

export const ConnectStartRequest = z
  .object({
    machine_id: z.string().regex(/^[0-9a-f]{32}$/),
    hostname: ShortText(255),
    platform: ShortText(32),
    arch: ShortText(32),
  })
  .strict()
  .register(apiDoc, { id: 'ConnectStartRequest' });

export const ConnectStart = z
  .object({
    device_code: z.string(),
    user_code: z.string(),
    verification_path: z.string(),
    verification_uri: z.string(),
    expires_in: z.number().int(),
    interval: z.number().int(),
  })
  .register(apiDoc, { id: 'ConnectStart' });

export const ConnectPollRequest = z
  .object({ device_code: z.string().regex(/^[A-Za-z0-9_-]{43}$/) })
  .strict()
  .register(apiDoc, { id: 'ConnectPollRequest' });

export const ConnectPoll = z
  .object({
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    api_key: z.string().optional(),
    org_id: z.string().optional(),
    node_id: z.string().optional(),
  })
  .register(apiDoc, { id: 'ConnectPoll' });

export const registerNode = defineOperation({
  name: 'registerNode',
  summary: 'Register (or refresh) a machine as a node of the organization',
  caller: { kind: 'org', scope: 'governance' },
  input: NodeRequest,
  output: NodeRegistration,
  run: async (ctx, caller, input) => (await setup()).registerNode(ctx, caller, input),
});

export const acceptTerms = defineOperation({
  name: 'acceptTerms',
  summary: 'Record acceptance of a version of the terms, with a signed receipt',
  caller: { kind: 'org', scope: 'governance' },
  input: TermsAcceptRequest,
  output: TermsAcceptance,
  run: async (ctx, caller, input) => (await setup()).acceptTerms(ctx, caller, input),
});

export const getTerms = defineOperation({
  name: 'getTerms',
  summary: 'The terms in force, and whether the organization accepted them',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: CurrentTerms,
  run: async (ctx, caller) => {
    const terms = (await setup()).currentTerms();
    const acceptance = await (await setup()).termsAcceptance(ctx, caller, terms.version);
    return {
      ...terms,
      accepted: acceptance !== null,
      accepted_at: acceptance?.accepted_at ?? null,
      receipt_id: acceptance?.receipt_id ?? null,
    };
  },
});

export const getTermsAcceptance = defineOperation({
  name: 'getTermsAcceptance',
  summary: 'Whether the organization accepted a version of the terms',
  caller: { kind: 'org', scope: 'governance' },
  input: TermsVersionParam,
  output: TermsState,
  run: async (ctx, caller, input) => ({
    version: input.version,
    acceptance: await (await setup()).termsAcceptance(ctx, caller, input.version),
  }),
});

export const startConnect = defineOperation({
  name: 'startConnect',
  summary: 'Start linking a computer (RFC 8628 device authorization): a device code and a user code',
  caller: { kind: 'none' },
  input: ConnectStartRequest,
  // The route adds the page's full address (verification_uri), which only it knows.
  output: ConnectStart.omit({ verification_uri: true }),
  run: async (ctx, _caller, input) => (await connect()).startConnect(ctx, input),
});

export const pollConnect = defineOperation({
  name: 'pollConnect',
  summary: 'Poll a connection: pending, denied, expired, or approved with the new key (delivered once)',
  caller: { kind: 'none' },
  input: ConnectPollRequest,
  output: ConnectPoll,
  run: async (ctx, _caller, input) => (await connect()).pollConnect(ctx, input.device_code),
});

const UserCode = z.object({ user_code: z.string().trim().min(1).max(32) });

export const describeConnect = defineOperation({
  name: 'describeConnect',
  summary: 'What a pending connection asks for: the machine and when the code expires',
  caller: { kind: 'none' },
  input: UserCode,
  output: z.object({
    user_code: z.string(),
    hostname: z.string(),
    platform: z.string(),
    status: z.enum(['pending', 'approved', 'denied', 'expired']),
    expires_at: z.string(),
  }),
  run: async (ctx, _caller, input) => (await connect()).describeRequest(ctx, input.user_code),
});

export const approveConnect = defineOperation({
  name: 'approveConnect',
  summary: 'Approve linking a computer, with an organization key',
  caller: { kind: 'org', scope: 'governance' },
  input: UserCode,
  output: z.object({ status: z.literal('approved'), hostname: z.string() }),
  run: async (ctx, caller, input) => (await connect()).approve(ctx, caller, input.user_code),
});

export const denyConnect = defineOperation({
  name: 'denyConnect',
  summary: 'Deny linking a computer (needs no credential: anyone shown the code may refuse it)',
  caller: { kind: 'none' },
  input: UserCode,
  output: z.object({ status: z.literal('denied'), receipt_id: z.string() }),
  run: async (ctx, _caller, input) => (await connect()).deny(ctx, input.user_code),
});
