// Document operations: answers from the sections a clearance allows, capsules of sealed documents,
// and the recovery key, copies and events.
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import * as documents from '../documents.ts';
import * as capsules from '../capsules.ts';
import * as recovery from '../recovery.ts';

const governanceKey = { kind: 'org', scope: 'governance' } as const;

export const computeDocuments = defineOperation({
  name: 'computeDocuments',
  summary: 'Answer a question from the sections the clearance allows',
  caller: governanceKey,
  input: S.DocumentsRequest,
  output: S.DocumentsResponse,
  run: (ctx, caller, input) => documents.computeDocuments(ctx, caller, input),
});

export const createCapsule = defineOperation({
  name: 'createCapsule',
  summary: 'Create a capsule',
  caller: governanceKey,
  input: S.CapsuleCreateRequest,
  output: S.CapsuleSummary,
  run: (ctx, caller, input) => capsules.createCapsule(ctx, caller, input.name),
});

export const listCapsules = defineOperation({
  name: 'listCapsules',
  summary: 'List capsules',
  caller: governanceKey,
  input: z.object({}),
  output: S.CapsuleList,
  run: (ctx, caller) => capsules.listCapsules(ctx, caller),
});

export const getCapsule = defineOperation({
  name: 'getCapsule',
  summary: 'Read one capsule',
  caller: governanceKey,
  input: S.IdParam,
  output: S.CapsuleDetail,
  run: (ctx, caller, input) => capsules.getCapsule(ctx, caller, input.id),
});

export const addCapsuleDocument = defineOperation({
  name: 'addCapsuleDocument',
  summary: 'Seal a document into a capsule',
  caller: governanceKey,
  input: S.CapsuleDocumentRequest.extend(S.IdParam.shape),
  output: S.CapsuleDocument,
  run: (ctx, caller, { id, ...input }) => capsules.addDocument(ctx, caller, id, input),
});

export const addCapsuleMember = defineOperation({
  name: 'addCapsuleMember',
  summary: 'Add a person to a capsule',
  caller: governanceKey,
  input: S.CapsuleMemberRequest.extend(S.IdParam.shape),
  output: S.CapsuleMember,
  run: (ctx, caller, { id, ...input }) => capsules.addMember(ctx, caller, id, input),
});

export const addCapsuleAiGrant = defineOperation({
  name: 'addCapsuleAiGrant',
  summary: 'Let an agent read a capsule’s documents',
  caller: governanceKey,
  input: S.CapsuleAiGrantRequest.extend(S.IdParam.shape),
  output: S.CapsuleAiGrant,
  run: (ctx, caller, { id, ...input }) => capsules.addAiGrant(ctx, caller, id, input),
});

export const revokeCapsule = defineOperation({
  name: 'revokeCapsule',
  summary: 'Turn every access to a capsule off',
  caller: governanceKey,
  input: S.IdParam,
  output: S.CapsuleRevoked,
  run: (ctx, caller, input) => capsules.revokeCapsule(ctx, caller, input.id),
});

export const setRecoveryKey = defineOperation({
  name: 'setRecoveryKey',
  summary: 'Set the public key derived from the 12-word phrase',
  caller: governanceKey,
  input: S.RecoveryPubkeyRequest,
  output: S.RecoveryPubkeyResponse,
  run: (ctx, caller, input) => recovery.setRecoveryKey(ctx, caller, input.pubkey_hex),
});

export const storeRecoveryCopy = defineOperation({
  name: 'storeRecoveryCopy',
  summary: 'Store a vault backup sealed to the recovery key',
  caller: governanceKey,
  input: S.RecoveryCopyRequest,
  output: S.RecoveryCopy,
  run: (ctx, caller, input) => recovery.storeRecoveryCopy(ctx, caller, input),
});

export const recordRecoveryEvent = defineOperation({
  name: 'recordRecoveryEvent',
  summary: 'Record a recovery event',
  caller: governanceKey,
  input: S.RecoveryEventRequest,
  output: S.RecoveryEvent,
  run: (ctx, caller, input) => recovery.recordRecoveryEvent(ctx, caller, input),
});

export const getRecoveryState = defineOperation({
  name: 'getRecoveryState',
  summary: 'Recovery state',
  caller: governanceKey,
  input: z.object({}),
  output: S.RecoveryState,
  run: (ctx, caller) => recovery.recoveryState(ctx, caller),
});
