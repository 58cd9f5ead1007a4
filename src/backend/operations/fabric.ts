// Fabric operations: enrollment, connections between organizations, and the content-blind
// envelope exchange behind the fetch gate.
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import { requireAgent } from '../credentials.ts';
import { ServiceError } from '../errors.ts';
import * as fabric from '../fabric.ts';

export const enrollFabric = defineOperation({
  name: 'enrollFabric',
  summary: 'Register an X25519 public key and get a Fabric address',
  caller: { kind: 'agent' },
  input: S.EnrollRequest.extend(S.HandleParam.shape),
  output: S.EnrollResponse,
  run: (ctx, agent, input) => fabric.enroll(ctx, requireAgent(agent, input.handle), input.ecdh_pubkey_hex),
});

export const listFabricGrants = defineOperation({
  name: 'listFabricGrants',
  summary: 'Outbound grants issued and inbound grants naming this organization’s agents',
  caller: { kind: 'org', scope: 'fabric' },
  input: z.object({}),
  output: S.FabricGrantList,
  run: (ctx, caller) => fabric.listFabricGrants(ctx, caller),
});

export const createFabricGrant = defineOperation({
  name: 'createFabricGrant',
  summary: 'Authorize a recipient address (deny by default)',
  caller: { kind: 'org', scope: 'fabric' },
  input: S.FabricGrantRequest,
  output: S.FabricGrantCreated,
  run: (ctx, caller, input) => fabric.createFabricGrant(ctx, caller, input),
});

export const revokeFabricGrant = defineOperation({
  name: 'revokeFabricGrant',
  summary: 'Revoke a connection',
  caller: { kind: 'org', scope: 'fabric' },
  input: S.FabricRevokeRequest,
  output: S.FabricGrantRevoked,
  run: (ctx, caller, input) => fabric.revokeFabricGrant(ctx, caller, input.grant_id, input.reason),
});

export const sendEnvelope = defineOperation({
  name: 'sendEnvelope',
  summary: 'Store a sealed envelope; sign a metadata-only receipt',
  caller: { kind: 'agent' },
  input: S.SendRequest.extend(S.HandleParam.shape),
  output: S.SendResponse,
  run: (ctx, agent, { handle, ...input }) => fabric.send(ctx, requireAgent(agent, handle), input),
});

export const listInbox = defineOperation({
  name: 'listInbox',
  summary: 'Envelopes addressed to this agent: metadata only',
  caller: { kind: 'agent' },
  input: S.HandleParam,
  output: S.InboxResponse,
  run: (ctx, agent, input) => fabric.inbox(ctx, requireAgent(agent, input.handle)),
});

export const fetchEnvelope = defineOperation({
  name: 'fetchEnvelope',
  summary: 'Fetch one envelope through the gate',
  caller: { kind: 'agent' },
  input: S.FetchRequest.extend(S.HandleParam.shape),
  output: S.FetchResponse,
  run: (ctx, agent, input) => {
    const result = fabric.fetchEnvelope(ctx, requireAgent(agent, input.handle), input.blob_id);
    // A denial is an error the caller cannot miss, carrying its reasons and signed receipt.
    if (result.outcome === 'deny') {
      throw new ServiceError(
        'fabric_denied',
        `the Fabric gate refused this fetch: ${result.reasons.join(', ')}`,
        { reasons: result.reasons, receipt_id: result.receipt.receipt_id, receipt: result.receipt },
      );
    }
    const { envelope, reasons, receipt } = result;
    return {
      ...envelope,
      decision: { outcome: 'allow' as const, reasons, receipt_id: receipt.receipt_id },
      receipt,
    };
  },
});
