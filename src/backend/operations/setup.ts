// Setup operations: this machine as a node, the terms, and linking a computer by browser approval
// (RFC 8628 device authorization).
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import * as setup from '../setup.ts';
import * as connect from '../connect.ts';

export const registerNode = defineOperation({
  name: 'registerNode',
  summary: 'Register (or refresh) a machine as a node of the organization',
  caller: { kind: 'org', scope: 'governance' },
  input: S.NodeRequest,
  output: S.NodeRegistration,
  run: (ctx, caller, input) => setup.registerNode(ctx, caller, input),
});

export const acceptTerms = defineOperation({
  name: 'acceptTerms',
  summary: 'Record acceptance of a version of the terms, with a signed receipt',
  caller: { kind: 'org', scope: 'governance' },
  input: S.TermsAcceptRequest,
  output: S.TermsAcceptance,
  run: (ctx, caller, input) => setup.acceptTerms(ctx, caller, input),
});

export const getTerms = defineOperation({
  name: 'getTerms',
  summary: 'The terms in force, and whether the organization accepted them',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: S.CurrentTerms,
  run: (ctx, caller) => {
    const terms = setup.currentTerms();
    const acceptance = setup.termsAcceptance(ctx, caller, terms.version);
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
  input: S.TermsVersionParam,
  output: S.TermsState,
  run: (ctx, caller, input) => ({
    version: input.version,
    acceptance: setup.termsAcceptance(ctx, caller, input.version),
  }),
});

export const startConnect = defineOperation({
  name: 'startConnect',
  summary: 'Start linking a computer (RFC 8628 device authorization): a device code and a user code',
  caller: { kind: 'none' },
  input: S.ConnectStartRequest,
  // The route adds the page's full address (verification_uri), which only it knows.
  output: S.ConnectStart.omit({ verification_uri: true }),
  run: (ctx, _caller, input) => connect.startConnect(ctx, input),
});

export const pollConnect = defineOperation({
  name: 'pollConnect',
  summary: 'Poll a connection: pending, denied, expired, or approved with the new key (delivered once)',
  caller: { kind: 'none' },
  input: S.ConnectPollRequest,
  output: S.ConnectPoll,
  run: (ctx, _caller, input) => connect.pollConnect(ctx, input.device_code),
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
  run: (ctx, _caller, input) => connect.describeRequest(ctx, input.user_code),
});

export const approveConnect = defineOperation({
  name: 'approveConnect',
  summary: 'Approve linking a computer, with an organization key',
  caller: { kind: 'org', scope: 'governance' },
  input: UserCode,
  output: z.object({ status: z.literal('approved'), hostname: z.string() }),
  run: (ctx, caller, input) => connect.approve(ctx, caller, input.user_code),
});

export const denyConnect = defineOperation({
  name: 'denyConnect',
  summary: 'Deny linking a computer (needs no credential: anyone shown the code may refuse it)',
  caller: { kind: 'none' },
  input: UserCode,
  output: z.object({ status: z.literal('denied') }),
  run: (ctx, _caller, input) => connect.deny(ctx, input.user_code),
});
