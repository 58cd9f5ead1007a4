// The agent's side of the Fabric, on the agent's own computer: its X25519 key kept in this
// computer's vault, enrolling it, opening what arrives and sealing what it sends. The service it
// calls (in process or remote) only ever sees the public key, ciphertext and metadata.
import { ServiceError } from './errors.ts';
import type { Context } from './context.ts';
import { refuseSealedContent } from './media-types.ts';
import type { Invoker } from './invoke.ts';
import { ops } from './operations/index.ts';
import { sha256Hex } from './signer.ts';
import {
  FabricCryptoError,
  fabricAddress,
  fabricKeyPairOf,
  openEnrollChallenge,
  openEnvelope,
  sealEnvelope,
  type FabricKeyPair,
} from '../proofs/envelope.ts';

/** Where the agent's private key lives: 32 random bytes, created once, never leaving this computer. */
export interface FabricKeyStore {
  /** The secret named `name`, created on first use and the same ever after. */
  secret(name: string): Promise<Uint8Array>;
  /** Where the keys are, for answers (never a key). */
  readonly location: string;
}

/** An agent acting on the Fabric: the service, its grant token, and (on its computer) its keys. */
export interface FabricAgent {
  invoker: Invoker;
  /** `Bearer ndca-...` */
  bearer: string;
  /** Absent where the agent's computer is not (the tools `svc serve` offers over HTTP). */
  keys?: FabricKeyStore | undefined;
}

/** This computer's vault as a Fabric key store. */
export function fabricKeyStore(ctx: Context): FabricKeyStore {
  return {
    location: ctx.vault.location,
    // Under the store's write lock: the keychain's create-on-first-use is not atomic, and two
    // processes enrolling one agent at once must end up with one key, not a key each.
    secret: async (name) => new Uint8Array(await ctx.store.write(async () => ctx.vault.secret(name))),
  };
}

/**
 * The vault name of an agent's Fabric key: fixed by its organization and handle, which its grant
 * tokens share, so a new token for the same agent finds the same key. Hashed to fit the vault's
 * name rule whatever the handle.
 */
export function fabricKeyName(orgId: string, handle: string): string {
  return `fabric-x25519-${sha256Hex(`svc-fabric-agent-key-v1\u0000${orgId}\u0000${handle}`).slice(0, 32)}`;
}

interface Identity {
  handle: string;
  org_id: string;
  address: string | null;
}

async function identity(agent: FabricAgent): Promise<Identity> {
  const me = await agent.invoker.invoke(ops.whoami, agent.bearer, {});
  if (me.kind !== 'agent') {
    throw new ServiceError(
      'wrong_credential',
      'the Fabric inbox takes an agent grant token (ndca-), not an organization key',
    );
  }
  return { handle: me.handle, org_id: me.org_id, address: me.fabric_address };
}

async function keysHere(agent: FabricAgent, who: Identity): Promise<FabricKeyPair> {
  if (!agent.keys) {
    throw new ServiceError(
      'forbidden',
      "this server does not run on the agent's computer, so it keeps no Fabric key and opens nothing: use `svc mcp` (or `svc inbox`) there",
    );
  }
  return fabricKeyPairOf(await agent.keys.secret(fabricKeyName(who.org_id, who.handle)));
}

/** The refusal for an agent enrolled with a key this computer does not hold. */
function notHeldHere(who: Identity, here: string): ServiceError {
  return new ServiceError(
    'conflict',
    `agent \`${who.handle}\` is enrolled as ${who.address}, whose private key this computer's vault does not hold (the key kept here has address ${here}): open its envelopes where that key is kept`,
    { kid: who.address },
  );
}

function notEnrolled(who: Identity): ServiceError {
  return new ServiceError(
    'not_enrolled',
    `agent \`${who.handle}\` has no Fabric address yet: get one first (svc_inbox with action \`address\`, or \`svc inbox address\`)`,
  );
}

export interface Address {
  kid: string;
  handle: string;
  /** True when this call enrolled the key. */
  enrolled_now: boolean;
  key_location: string;
}

/**
 * The agent's Fabric address, enrolling a key of this computer's vault first when it has none:
 * the challenge is opened here, so the service learns the public key and that we hold its private key.
 */
export async function ensureAddress(agent: FabricAgent): Promise<Address> {
  const who = await identity(agent);
  const keys = await keysHere(agent, who);
  const here = fabricAddress(keys.publicKeyHex);
  const location = agent.keys!.location;
  if (who.address) {
    if (who.address !== here) throw notHeldHere(who, here);
    return { kid: here, handle: who.handle, enrolled_now: false, key_location: location };
  }
  const { handle } = who;
  const ecdh_pubkey_hex = keys.publicKeyHex;
  const challenge = await agent.invoker.invoke(ops.requestEnrollChallenge, agent.bearer, {
    handle,
    ecdh_pubkey_hex,
  });
  const proof = await openEnrollChallenge({
    challenge_b64: challenge.challenge_b64,
    privateKeyHex: keys.privateKeyHex,
    publicKeyHex: keys.publicKeyHex,
  });
  try {
    await agent.invoker.invoke(ops.enrollFabric, agent.bearer, { handle, ecdh_pubkey_hex, proof });
  } catch (error) {
    // Another process of this agent enrolled the same key (the vault gave both the same one) first.
    if (error instanceof ServiceError && error.code === 'already_enrolled' && error.details.kid === here) {
      return { kid: here, handle, enrolled_now: false, key_location: location };
    }
    throw error;
  }
  return { kid: here, handle, enrolled_now: true, key_location: location };
}

/** The envelopes addressed to the agent, metadata only. */
export async function listArrivals(agent: FabricAgent) {
  const who = await identity(agent);
  if (!who.address) throw notEnrolled(who);
  return await agent.invoker.invoke(ops.listInbox, agent.bearer, { handle: who.handle });
}

/** One envelope of the listing, or not_found: nothing is fetched. */
export async function arrival(agent: FabricAgent, id: string) {
  const inbox = await listArrivals(agent);
  const item = inbox.items.find((i) => i.id === id);
  if (!item) {
    throw new ServiceError(
      'not_found',
      `no envelope ${id} is addressed to ${inbox.kid}: list the arrivals to see their ids`,
    );
  }
  return item;
}

/** The grants that let other organizations' agents send to this agent's address. */
export async function permittedSenders(agent: FabricAgent) {
  const who = await identity(agent);
  if (!who.address) throw notEnrolled(who);
  return await agent.invoker.invoke(ops.listFabricSenders, agent.bearer, { handle: who.handle });
}

/**
 * Fetches one envelope through the service's gate (each allowed fetch counts against its
 * max_fetches and is receipted; a refusal throws `fabric_denied` or `gone` with its receipt) and
 * opens it here. The plaintext is answered to the caller alone.
 */
export async function fetchAndOpen(agent: FabricAgent, id: string) {
  const who = await identity(agent);
  if (!who.address) throw notEnrolled(who);
  // Before the fetch, so an envelope is never spent on a computer that cannot open it.
  const keys = await keysHere(agent, who);
  const here = fabricAddress(keys.publicKeyHex);
  if (who.address !== here) throw notHeldHere(who, here);
  const fetched = await agent.invoker.invoke(ops.fetchEnvelope, agent.bearer, {
    handle: who.handle,
    blob_id: id,
  });
  let plaintext: Uint8Array;
  try {
    plaintext = await openEnvelope({
      ciphertext_b64: fetched.ciphertext_b64,
      wrapped_key_b64: fetched.wrapped_key_b64,
      payload_iv_b64: fetched.payload_iv_b64,
      recipientPrivateKeyHex: keys.privateKeyHex,
      recipientPublicKeyHex: keys.publicKeyHex,
    });
  } catch (error) {
    if (!(error instanceof FabricCryptoError)) throw error;
    throw new ServiceError(
      'sealed_corrupt',
      `envelope ${id} was fetched (receipt ${fetched.decision.receipt_id}) but does not open with this agent's key: it was altered, or sealed to another key. Ask its sender (${fetched.sender_kid}) to send it again`,
      {
        envelope_id: id,
        receipt_id: fetched.decision.receipt_id,
        fetches_remaining: fetched.fetches_remaining,
      },
    );
  }
  return {
    id: fetched.id,
    sender_kid: fetched.sender_kid,
    recipient_kid: fetched.recipient_kid,
    content_type_hint: fetched.content_type_hint,
    filename_hint: fetched.filename_hint,
    purpose: fetched.purpose,
    ttl_at: fetched.ttl_at,
    fetches_remaining: fetched.fetches_remaining,
    receipt_id: fetched.decision.receipt_id,
    plaintext,
  };
}

export interface Outgoing {
  to: string;
  plaintext: Uint8Array;
  filename_hint?: string | undefined;
  content_type_hint?: string | undefined;
  ttl_hours?: number | undefined;
  max_fetches?: number | undefined;
  purpose?: string | undefined;
}

/**
 * Seals `plaintext` here to the key enrolled at `to` and sends the envelope as the agent. The
 * sender needs an address of its own (the recipient's gate checks who sent it), not its private key.
 */
export async function sealAndSend(agent: FabricAgent, outgoing: Outgoing) {
  refuseSealedContent(outgoing.plaintext, outgoing.filename_hint);
  const who = await identity(agent);
  if (!who.address) throw notEnrolled(who);
  const recipient = await agent.invoker.invoke(ops.getFabricKey, agent.bearer, {
    handle: who.handle,
    kid: outgoing.to,
  });
  // The service answered the key; the address is its hash, so a key for another address is caught here.
  if (fabricAddress(recipient.ecdh_pubkey_hex) !== outgoing.to) {
    throw new ServiceError(
      'internal',
      `the service answered a key that does not belong to ${outgoing.to}; nothing was sent`,
    );
  }
  const sealed = await sealEnvelope({
    plaintext: outgoing.plaintext,
    recipientPublicKeyHex: recipient.ecdh_pubkey_hex,
  });
  return await agent.invoker.invoke(ops.sendEnvelope, agent.bearer, {
    handle: who.handle,
    recipient_kid: outgoing.to,
    ciphertext_b64: sealed.ciphertext_b64,
    wrapped_key_b64: sealed.wrapped_key_b64,
    payload_iv_b64: sealed.payload_iv_b64,
    content_type_hint: outgoing.content_type_hint,
    filename_hint: outgoing.filename_hint,
    ttl_hours: outgoing.ttl_hours,
    max_fetches: outgoing.max_fetches,
    purpose: outgoing.purpose,
  });
}

/** Content types whose bytes are text, so an opened envelope of one may come back as text. */
export function textualHint(hint: string | null): boolean {
  if (hint === null) return true;
  const type = hint.split(';')[0]!.trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|toml|javascript|x-ndjson)$/.test(type) ||
    /\+(json|xml)$/.test(type)
  );
}

export { asText, contentTypeOf } from './media-types.ts';
