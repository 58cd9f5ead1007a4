// A valid input for every operation of the registry, for the suites derived from it.
import { tmpdir } from 'node:os';

export interface Ids {
  handle: string;
  /** An agent the revoke endpoint may end without spoiling the other cases. */
  disposable: string;
  capsule: string;
  fabricGrant: string;
  blob: string;
  /** A receipt of this organization. */
  proof: string;
  /** An organization rule of the read gate, removable. */
  rule: string;
}

export interface Sample {
  /** A valid input for the operation, as the remote backend would send it. */
  input: (ids: Ids) => Record<string, unknown>;
  /**
   * The operation names a resource owned by one organization (or one agent): another's caller is
   * refused 403, or, with `hidden`, answered 404 exactly as for a resource that does not exist.
   */
  owned?: true | 'hidden';
}

/**
 * A valid input for every operation with an HTTP route that takes a credential. The matrix is
 * derived from the routes: an operation routed without a sample here fails the first test.
 */
/**
 * A valid input for every operation. The auth matrix and the contract suite are derived from the
 * registry and take their inputs from here: an operation without a sample fails both.
 */
const UNKNOWN_LINK = 'A'.repeat(22);

export const SAMPLES: Record<string, Sample> = {
  createGrant: { input: () => ({ agent: 'x', columns: ['id'] }) },
  listAgents: { input: () => ({}) },
  revokeAgent: { input: (i) => ({ target: i.disposable }), owned: 'hidden' },
  listTables: { input: () => ({}) },
  registerTable: {
    input: () => ({ name: 't', columns: [{ name: 'id', classification: 'public', storage: 'plaintext' }] }),
  },
  loadRows: { input: () => ({ name: 'agent_demo_records', rows: [{ id: 999 }] }) },
  listFabricGrants: { input: () => ({}) },
  createFabricGrant: { input: () => ({ subject_kid: 'cccccccccccccccc' }) },
  revokeFabricGrant: { input: (i) => ({ grant_id: i.fabricGrant }), owned: true },
  computeDocuments: {
    input: () => ({ question: 'q', clearance: 'public', sections: [{ title: 't', text: 'x' }] }),
  },
  createCapsule: { input: () => ({ name: 'c' }) },
  listCapsules: { input: () => ({}) },
  getCapsule: { input: (i) => ({ id: i.capsule }), owned: 'hidden' },
  addCapsuleDocument: { input: (i) => ({ id: i.capsule, title: 't', text: 'x' }), owned: 'hidden' },
  addCapsuleMember: { input: (i) => ({ id: i.capsule, email: 'a@b.test', role: 'viewer' }), owned: 'hidden' },
  addCapsuleAiGrant: { input: (i) => ({ id: i.capsule, agent: i.handle }), owned: 'hidden' },
  revokeCapsule: { input: (i) => ({ id: i.capsule }), owned: 'hidden' },
  setRecoveryKey: { input: () => ({ pubkey_hex: 'ab'.repeat(32) }) },
  storeRecoveryCopy: { input: () => ({ ciphertext_b64: 'AAAA' }) },
  recordRecoveryEvent: { input: () => ({ kind: 'phrase_created' }) },
  getRecoveryState: { input: () => ({}) },
  getOverview: { input: () => ({}) },
  getInvoice: { input: () => ({}) },
  whoami: { input: () => ({}) },
  registerSource: {
    input: () => ({
      name: 'api',
      base_url: 'http://127.0.0.1:9/',
      scheme: 'bearer',
      credential: 'sample-credential',
      allow_private_network: true,
    }),
  },
  listSources: { input: () => ({}) },
  callSource: { input: () => ({ source: 'none', method: 'GET', path: 'x' }) },
  listRules: { input: () => ({}) },
  addRules: { input: () => ({ rules: [{ effect: 'deny', paths: ['*.secret'] }] }) },
  removeRule: { input: (i) => ({ rule_id: i.rule }), owned: 'hidden' },
  submitPatch: {
    input: () => ({
      summary: 'a greeting',
      diff: '--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1 @@\n+hello\n',
      project_root: '/nonexistent/svc-sample-project',
    }),
  },
  listPatches: { input: () => ({}) },
  // A patch id no organization has: another organization's key is answered 404 as for its own.
  listScanFeedback: { input: () => ({}) },
  // Verdicts and scans kept on a computer belong to no organization: an id no store keeps is 404.
  promoteScanFeedback: { input: () => ({ feedback_id: 'fb_0000000000000000' }) },
  applyScanPlan: { input: () => ({ scan_id: 'scan_0000000000000000' }) },
  approvePatch: { input: () => ({ patch_id: 'patch_000000000000' }), owned: 'hidden' },
  rejectPatch: { input: () => ({ patch_id: 'patch_000000000000' }), owned: 'hidden' },
  getPolicyBoard: { input: () => ({}) },
  listProofs: { input: () => ({}) },
  registerNode: {
    input: () => ({ machine_id: 'a'.repeat(32), hostname: 'h', platform: 'linux', arch: 'x64' }),
  },
  acceptTerms: { input: () => ({ version: '2026-11-01', text: 'terms' }) },
  getTerms: { input: () => ({}) },
  getTermsAcceptance: { input: () => ({ version: '2026-11-01' }) },
  retrieve: { input: () => ({ columns: ['id'] }) },
  useCapability: { input: () => ({ source: 'crm', method: 'GET', path: 'x' }) },
  computeDecision: { input: () => ({ columns: ['id'] }) },
  readRows: {
    input: (i) => ({ handle: i.handle, table: 'agent_demo_records', columns: ['id'] }),
    owned: true,
  },
  requestEnrollChallenge: {
    input: (i) => ({ handle: i.handle, ecdh_pubkey_hex: 'ab'.repeat(32) }),
    owned: true,
  },
  // Without a proof (a sample cannot open a challenge): refused with 400 key_not_proven.
  enrollFabric: { input: (i) => ({ handle: i.handle, ecdh_pubkey_hex: 'ab'.repeat(32) }), owned: true },
  sendEnvelope: {
    input: (i) => ({
      handle: i.handle,
      recipient_kid: 'cccccccccccccccc',
      ciphertext_b64: 'AAAA',
      wrapped_key_b64: 'AAAA',
      payload_iv_b64: 'AAAA',
    }),
    owned: true,
  },
  listInbox: { input: (i) => ({ handle: i.handle }), owned: true },
  listFabricSenders: { input: (i) => ({ handle: i.handle }), owned: true },
  getFabricKey: { input: (i) => ({ handle: i.handle, kid: 'cccccccccccccccc' }), owned: true },
  fetchEnvelope: { input: (i) => ({ handle: i.handle, blob_id: i.blob }), owned: true },
  verifyProof: { input: (i) => ({ proof_id: i.proof }) },
  getProof: { input: (i) => ({ id: i.proof }) },
  getPublishedKeys: { input: () => ({}) },
  startConnect: {
    input: () => ({ machine_id: 'b'.repeat(32), hostname: 'h', platform: 'linux', arch: 'x64' }),
  },
  pollConnect: { input: () => ({ device_code: 'unknown-device-code' }) },
  describeConnect: { input: () => ({ user_code: 'ABCD-EFGH' }) },
  approveConnect: { input: () => ({ user_code: 'ABCD-EFGH' }) },
  denyConnect: { input: () => ({ user_code: 'ABCD-EFGH' }) },
  // An empty content: its ciphertext is the 12-byte IV and the 16-byte tag alone.
  createLink: {
    input: () => ({
      ciphertext_b64: Buffer.alloc(28).toString('base64'),
      size_bytes: 0,
      content_type: 'text/plain',
      key_check: '0'.repeat(16),
    }),
  },
  listLinks: { input: () => ({}) },
  // A link id no organization has: another organization's key is answered 404 as for its own.
  linkStatus: { input: () => ({ link_id: UNKNOWN_LINK }), owned: 'hidden' },
  burnLink: { input: () => ({ link_id: UNKNOWN_LINK }), owned: 'hidden' },
  revokeLink: { input: () => ({ link_id: UNKNOWN_LINK }), owned: 'hidden' },
  viewLink: { input: () => ({ link_id: UNKNOWN_LINK }) },
  openLink: { input: () => ({ link_id: UNKNOWN_LINK, nonce: 'none' }) },
  // An exposure of the temporary folder: starting one reads no file.
  startExposure: { input: () => ({ folder: tmpdir(), expires_hours: 1 }) },
  listExposures: { input: () => ({}) },
  endExposure: { input: () => ({ exposure_id: UNKNOWN_LINK }) },
  listExposedFiles: { input: () => ({ exposure_id: UNKNOWN_LINK }) },
  copyExposedFile: { input: () => ({ exposure_id: UNKNOWN_LINK, nonce: 'none', file: 'notes.txt' }) },
  createOrg: { input: () => ({ name: 'Sample Org' }) },
  createApiKey: { input: () => ({ org_id: null, scopes: ['*'] }) },
  revokeApiKey: { input: () => ({ key_id: 'key_unknown' }) },
};
