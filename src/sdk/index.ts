// The svc SDK: compute and verify over HTTP, verify receipts offline, seal and open Fabric envelopes.
export {
  SvcClient,
  SvcApiError,
  type ClientOptions,
  type ComputeRequest,
  type AccessDecision,
  type Verdict,
} from './client.ts';
export { verifyReceiptOffline, type SignedReceipt, type OfflineVerdict } from './receipt.ts';
export {
  sealEnvelope,
  openEnvelope,
  generateFabricKeyPair,
  fabricAddress,
  FabricCryptoError,
  type FabricEnvelope,
  type FabricKeyPair,
} from './fabric.ts';
