// The svc SDK: compute and verify over HTTP, verify receipts offline, enroll Fabric keys, seal and
// open Fabric envelopes.
export {
  SvcClient,
  SvcApiError,
  type ClientOptions,
  type ComputeRequest,
  type AccessDecision,
  type Verdict,
  type EnrollChallenge,
  type Enrollment,
} from './client.ts';
export { verifyReceiptOffline, type SignedReceipt, type OfflineVerdict } from './receipt.ts';
export {
  sealEnvelope,
  openEnvelope,
  generateFabricKeyPair,
  fabricAddress,
  openEnrollChallenge,
  FabricCryptoError,
  type FabricEnvelope,
  type FabricKeyPair,
  type OpenEnrollChallengeInput,
} from './fabric.ts';
