// The SDK's HTTP client (undici): compute a decision, verify a proof online, fetch what offline
// verification needs (a receipt, the published keys), and enroll a Fabric key.
import { request } from 'undici';
import type { z } from 'zod';
import type {
  AccessDecisionSchema,
  ComputeRequest as ComputeRequestSchema,
} from '../backend/operations/governance.ts';
import type { PublishedKeys as PublishedKeysSchema, VerifyResponse } from '../backend/operations/proofs.ts';
import type {
  EnrollChallenge as EnrollChallengeSchema,
  EnrollResponse,
} from '../backend/operations/fabric.ts';
import type { SignedReceipt } from './receipt.ts';
import { openEnrollChallenge, type FabricKeyPair } from './fabric.ts';

export class SvcApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>) {
    super(typeof body.message === 'string' ? body.message : `HTTP ${status}`);
    this.name = 'SvcApiError';
    this.status = status;
    this.code = typeof body.error === 'string' ? body.error : 'http_error';
    this.body = body;
  }
}

export interface ClientOptions {
  baseUrl: string;
  /** An organization key (ndp_) or an agent grant token (ndca-), depending on the calls made. */
  token?: string;
}

// The request and answer shapes are the service's own schemas (type-only imports: nothing of the
// service is loaded at run time), so the SDK cannot drift from what the API validates.
export type ComputeRequest = z.input<typeof ComputeRequestSchema>;
export type AccessDecision = z.output<typeof AccessDecisionSchema>;
export type Verdict = z.output<typeof VerifyResponse>;
export type PublishedKeys = z.output<typeof PublishedKeysSchema>;
export type EnrollChallenge = z.output<typeof EnrollChallengeSchema>;
export type Enrollment = z.output<typeof EnrollResponse>;

export class SvcClient {
  private readonly baseUrl: string;
  private readonly token: string | undefined;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
  }

  /** Sends one JSON request; any non-2xx answer becomes an SvcApiError carrying the error body. */
  async call<T>(method: 'GET' | 'POST' | 'PATCH', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await request(this.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.body.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: 'invalid_response', message: text.slice(0, 200) };
    }
    if (response.statusCode < 200 || response.statusCode >= 300) {
      throw new SvcApiError(response.statusCode, parsed as Record<string, unknown>);
    }
    return parsed as T;
  }

  /** Plan a decision with the agent token; `receipt` mints a signed proof of it. */
  compute(input: ComputeRequest, options: { receipt?: boolean } = {}): Promise<AccessDecision> {
    return this.call('POST', `/api/access/compute${options.receipt ? '?receipt=true' : ''}`, input);
  }

  /** Ask the service to re-check a proof; needs no credential. */
  verify(proofId: string): Promise<Verdict> {
    return this.call('POST', '/access/verify', { proof_id: proofId });
  }

  /** The signed record of a proof, for `verifyReceiptOffline`. */
  receipt(proofId: string): Promise<SignedReceipt> {
    return this.call('GET', `/access/proofs/${encodeURIComponent(proofId)}`);
  }

  /**
   * Enrolls the agent's X25519 key with the agent token, in one call: asks for a challenge sealed to
   * the public key, opens it here with the private key (which never leaves this process) and sends
   * the opened text back as the proof of holding it. Answers the Fabric address (`kid`).
   */
  async enrollFabric(handle: string, keys: FabricKeyPair): Promise<Enrollment> {
    const path = `/api/agents/${encodeURIComponent(handle)}/fabric/enroll`;
    const ecdh_pubkey_hex = keys.publicKeyHex.toLowerCase();
    const challenge = await this.call<EnrollChallenge>('POST', `${path}/challenge`, { ecdh_pubkey_hex });
    const proof = await openEnrollChallenge({
      challenge_b64: challenge.challenge_b64,
      privateKeyHex: keys.privateKeyHex,
      publicKeyHex: ecdh_pubkey_hex,
    });
    return this.call('POST', path, { ecdh_pubkey_hex, proof });
  }

  publishedKeys(): Promise<PublishedKeys> {
    return this.call('GET', '/.well-known/svc-keys.json');
  }
}
