// svc_send and svc_inbox through a real MCP client on an in-process server: the tool errors (bad
// combinations, a link without the organization key, no key store, not enrolled, a key held elsewhere), the
// read gate before a file is sent or an envelope written out (refused before any fetch), and a
// round trip between two organizations' agents with text and a binary file.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ops } from '../../src/backend/operations/index.ts';
import { fabricKeyStore } from '../../src/backend/fabric-inbox.ts';
import { protectPaths } from '../../src/backend/seal-files.ts';
import { generateFabricKeyPair } from '../../src/sdk/fabric.ts';
import { enrollKey } from '../helpers.ts';
import { computer, type ToolAnswer } from './computer.ts';

const here = computer('svc-share-tool-', [
  { effect: 'deny', paths: ['private/'], actions: ['read', 'write'] },
]);
const { project, service } = here;

type Call = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

async function newAgent(org: string, name: string) {
  const created = await service.invoke(ops.createOrg, undefined, { name: org });
  const grant = await service.invoke(ops.createGrant, `Bearer ${created.api_key}`, {
    agent: name,
    columns: ['id'],
  });
  return { owner: `Bearer ${created.api_key}`, bearer: `Bearer ${grant.grant_token}`, handle: grant.handle };
}

/** A client acting as the agent of `bearer`, with this computer's gate and vault unless told otherwise. */
const clientOf = (bearer: string | undefined, options: { keys?: boolean } = {}) =>
  here.client((svc) => ({
    agentBearer: bearer,
    fabricKeys: options.keys === false ? undefined : fabricKeyStore(svc.ctx),
  })) as Promise<Call>;

let alice: Awaited<ReturnType<typeof newAgent>>;
let bob: Awaited<ReturnType<typeof newAgent>>;
let asAlice: Call;
let asBob: Call;
let aliceKid: string;
let bobKid: string;

beforeAll(async () => {
  alice = await newAgent('Sender Org', 'Alice');
  bob = await newAgent('Receiver Org', 'Bob');
  asAlice = await clientOf(alice.bearer);
  asBob = await clientOf(bob.bearer);
  mkdirSync(join(project, 'private'));
  writeFileSync(join(project, 'notes.txt'), 'quarterly numbers: 42\n');
  writeFileSync(join(project, 'logo.bin'), Buffer.from([0, 159, 146, 150, 255, 0, 1, 2]));
});
afterAll(() => here.close());

describe('svc_send: tool errors, before anything is sent', () => {
  it.each([
    [
      'both path and text',
      { path: 'notes.txt', text: 'x', to: 'aaaaaaaaaaaaaaaa' },
      /^invalid_request: give exactly one/,
    ],
    ['neither path nor text', { to: 'aaaaaaaaaaaaaaaa' }, /^invalid_request: give exactly one/],
    ['no `to` (a link) without the organization key', { text: 'x' }, /needs an organization key/],
    [
      'code with `to`',
      { text: 'x', to: 'aaaaaaaaaaaaaaaa', code: true },
      /^invalid_request: code apply to links only/,
    ],
    [
      'view_only with `to`',
      { text: 'x', to: 'aaaaaaaaaaaaaaaa', view_only: false },
      /view_only apply to links only/,
    ],
    [
      'more than 20 opens of an envelope',
      { text: 'x', to: 'aaaaaaaaaaaaaaaa', max_opens: 21 },
      /at most 20 times/,
    ],
    ['a `to` that is not an address', { text: 'x', to: 'AAAA' }, /16 lowercase hex/],
    ['an unknown field', { text: 'x', to: 'aaaaaaaaaaaaaaaa', cc: 'b' }, /cc/],
    ['expires_hours past 720', { text: 'x', to: 'aaaaaaaaaaaaaaaa', expires_hours: 721 }, /expires_hours/],
  ])('%s', async (_name, args, message) => {
    const result = await asAlice('svc_send', args);
    expect(result.error).toBe(true);
    expect(result.text).toMatch(message);
  });

  it('without an agent token says to set SVC_AGENT_TOKEN', async () => {
    const call = await clientOf(undefined);
    for (const [name, args] of [
      ['svc_send', { text: 'x', to: 'aaaaaaaaaaaaaaaa' }],
      ['svc_inbox', { action: 'address' }],
    ] as const) {
      const result = await call(name, args);
      expect(result.error).toBe(true);
      expect(result.text).toMatch(/SVC_AGENT_TOKEN/);
    }
  });

  it('a file sealed in place is refused before anything else, pointing to svc_open', async () => {
    writeFileSync(join(project, 'sealed.txt'), 'sealed numbers: 42\n');
    await protectPaths(service.ctx, [join(project, 'sealed.txt')], { by: 'user:test' });
    const result = await asAlice('svc_send', { path: 'sealed.txt', cwd: project, to: 'aaaaaaaaaaaaaaaa' });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^invalid_request: sealed\.txt is a file sealed by svc_protect/);
    expect(result.text).toContain('svc_open');
  });

  it('a sender without an address is told to get one first', async () => {
    const result = await asAlice('svc_send', { text: 'x', to: 'aaaaaaaaaaaaaaaa' });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^not_enrolled: .*svc_inbox with action `address`/);
  });
});

describe('svc_inbox: tool errors', () => {
  it('arrivals and senders before enrolling say to get an address first', async () => {
    for (const action of ['arrivals', 'senders', 'open']) {
      const result = await asBob('svc_inbox', {
        action,
        ...(action === 'open' ? { id: '00000000-0000-4000-8000-000000000001' } : {}),
      });
      expect(result.error, action).toBe(true);
      expect(result.text).toMatch(/^not_enrolled: /);
    }
  });

  it('id and out go with open only; open needs an id', async () => {
    expect(
      (await asBob('svc_inbox', { action: 'arrivals', id: '00000000-0000-4000-8000-000000000001' })).text,
    ).toMatch(/id and out go with action open only/);
    expect((await asBob('svc_inbox', { action: 'open' })).text).toMatch(/open needs the envelope id/);
    expect((await asBob('svc_inbox', { action: 'open', id: 'nope' })).text).toMatch(/UUID/);
  });

  it('a server without this computer’s vault keeps no key and enrolls nothing', async () => {
    const call = await clientOf(bob.bearer, { keys: false });
    const result = await call('svc_inbox', { action: 'address' });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^forbidden: .*keeps no Fabric key/);
    expect((await service.invoke(ops.whoami, bob.bearer, {})).fabric_address).toBeNull();
  });

  it('an agent enrolled with a key this computer does not hold is told so, and nothing is fetched', async () => {
    const elsewhere = await newAgent('Elsewhere Org', 'Carol');
    const keys = await generateFabricKeyPair();
    const enrolled = await enrollKey(service, elsewhere.bearer, elsewhere.handle, keys);
    const call = await clientOf(elsewhere.bearer);
    const result = await call('svc_inbox', { action: 'address' });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(new RegExp(`^conflict: .*enrolled as ${enrolled.kid}, whose private key`));
    expect(result.all).not.toContain(keys.privateKeyHex);
  });
});

describe('a round trip between two organizations', () => {
  it('address enrolls once, with the key kept in the vault, and is idempotent', async () => {
    const first = await asAlice('svc_inbox', { action: 'address' });
    expect(first.error, first.text).toBe(false);
    expect(first.data).toMatchObject({
      action: 'address',
      enrolled_now: true,
      address: expect.stringMatching(/^[0-9a-f]{16}$/),
      next: expect.stringContaining('give your address'),
    });
    aliceKid = first.data.address;
    const again = await asAlice('svc_inbox', { action: 'address' });
    expect(again.data).toMatchObject({ address: aliceKid, enrolled_now: false });
    const bobs = await asBob('svc_inbox', { action: 'address' });
    bobKid = bobs.data.address;
    expect(bobKid).not.toBe(aliceKid);
    expect((await service.invoke(ops.whoami, alice.bearer, {})).fabric_address).toBe(aliceKid);
  });

  it('sends text and a file; the recipient lists them and opens the text', async () => {
    // The sender's organization grants the recipient's address and names its sending agent.
    await service.invoke(ops.createFabricGrant, alice.owner, {
      subject_kid: bobKid,
      label: 'to Receiver Org',
      allowed_sender_kids: [aliceKid],
    });
    const text = await asAlice('svc_send', {
      text: 'hello Bob',
      to: bobKid,
      from: 'Alice',
      purpose: 'greeting',
    });
    expect(text.error, text.text).toBe(false);
    expect(text.data).toMatchObject({
      kind: 'envelope',
      to: bobKid,
      max_fetches: 1,
      receipt_id: expect.stringMatching(/^rcpt_/),
    });
    const file = await asAlice('svc_send', { path: join(project, 'logo.bin'), to: bobKid, max_opens: 2 });
    expect(file.data).toMatchObject({ max_fetches: 2 });

    const senders = await asBob('svc_inbox', { action: 'senders' });
    expect(senders.data.senders).toEqual([
      expect.objectContaining({
        label: 'to Receiver Org',
        allowed_sender_kids: [aliceKid],
        status: 'active',
      }),
    ]);
    const arrivals = await asBob('svc_inbox', { action: 'arrivals' });
    expect(arrivals.data.arrivals).toHaveLength(2);
    expect(arrivals.all).not.toContain('hello Bob');
    const opened = await asBob('svc_inbox', { action: 'open', id: text.data.envelope_id });
    expect(opened.error, opened.text).toBe(false);
    expect(opened.data.opened).toMatchObject({
      released_to: 'text',
      text: 'hello Bob',
      sender_kid: aliceKid,
      purpose: 'from Alice: greeting',
      fetches_left: 0,
    });
    const twice = await asBob('svc_inbox', { action: 'open', id: text.data.envelope_id });
    expect(twice.text).toMatch(/^gone: .*"receipt_id":"rcpt_/s);
  });

  it('binary content is not fetched without out; a refused out spends nothing; a new file gets it', async () => {
    const arrivals = await asBob('svc_inbox', { action: 'arrivals' });
    const binary = arrivals.data.arrivals.find(
      (a: { filename_hint: string }) => a.filename_hint === 'logo.bin',
    );
    const asked = await asBob('svc_inbox', { action: 'open', id: binary.id });
    expect(asked.data.opened).toMatchObject({ released_to: 'nothing', receipt_id: null, fetches_left: 2 });
    expect(asked.text).toMatch(/nothing was fetched/);
    const refused = await asBob('svc_inbox', {
      action: 'open',
      id: binary.id,
      out: 'private/logo.bin',
      cwd: project,
    });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/^forbidden: /);
    const out = join(project, 'logo-copy.bin');
    const written = await asBob('svc_inbox', { action: 'open', id: binary.id, out });
    expect(written.data.opened).toMatchObject({
      released_to: 'file',
      out_path: out,
      fetches_left: 1,
      bytes: 8,
    });
    expect(readFileSync(out)).toEqual(readFileSync(join(project, 'logo.bin')));
    const exists = await asBob('svc_inbox', { action: 'open', id: binary.id, out });
    expect(exists.text).toMatch(/^conflict: .*exists/);
    expect(
      (await asBob('svc_inbox', { action: 'arrivals' })).data.arrivals.find(
        (a: { id: string }) => a.id === binary.id,
      ).fetches_left,
    ).toBe(1);
  });

  it("a file the read gate denies is not sent: svc's own keys", async () => {
    const keyFile = join(service.dataDir, 'keys', 'service-signing-ed25519.key');
    const result = await asAlice('svc_send', { path: keyFile, to: bobKid });
    expect(result.error).toBe(true);
    expect(result.text).toMatch(/^forbidden: /);
    expect(result.all).not.toContain(readFileSync(keyFile, 'utf8').trim());
    expect((await asBob('svc_inbox', { action: 'arrivals' })).data.arrivals).toHaveLength(2);
  });

  it('an envelope no grant lets through: the refusal says who grants it, and names its receipt by id', async () => {
    // Dave's organization never granted Bob's address: the send goes through, the fetch does not.
    const dave = await newAgent('Third Org', 'Dave');
    const asDave = await clientOf(dave.bearer);
    const daveKid = (await asDave('svc_inbox', { action: 'address' })).data.address as string;
    const sent = await asDave('svc_send', { text: 'no grant for this', to: bobKid });
    expect(sent.error, sent.text).toBe(false);
    const refused = await asBob('svc_inbox', { action: 'open', id: sent.data.envelope_id });
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/^fabric_denied: the Fabric gate refused this fetch \(no_grant\): /);
    expect(refused.text).toContain(`the organization of the sender ${daveKid}`);
    expect(refused.text).toContain(`POST /api/v1/fabric-grants with subject_kid ${bobKid}`);
    expect(refused.text).toContain('It spent no fetch');
    expect(refused.text).toMatch(/"receipt_id":"rcpt_/);
    expect(refused.text).not.toContain('"receipt":');
    expect(refused.text.length).toBeLessThan(800);
    // Once Dave's organization grants the address, the same envelope opens.
    await service.invoke(ops.createFabricGrant, dave.owner, { subject_kid: bobKid });
    const opened = await asBob('svc_inbox', { action: 'open', id: sent.data.envelope_id });
    expect(opened.data.opened).toMatchObject({ released_to: 'text', text: 'no grant for this' });
  });

  it('an unknown recipient is a receipted not_found', async () => {
    const result = await asAlice('svc_send', { text: 'x', to: 'eeeeeeeeeeeeeeee' });
    expect(result.text).toMatch(
      /^not_found: no agent is enrolled at Fabric address eeeeeeeeeeeeeeee.*"receipt_id":"rcpt_/s,
    );
  });
});
