// `svc inbox` as a person (or an agent's shell) runs it: the address enrolled once with a key of
// this data dir's vault, arrivals, permitted senders, a text opened to stdout, and the exit codes of
// bad usage (2), a refused fetch (5) and other refusals (1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { sealAndSend } from '../../src/backend/fabric-inbox.ts';
import { tempDir } from '../helpers.ts';
import { childEnv, runSvc } from '../e2e/procs.ts';

const home = tempDir('svc-cli-inbox-');
let senderOwner: string;
let senderBearer: string;
let recipientToken: string;
const asRecipient = () => childEnv({ SVC_HOME: home.dir, SVC_AGENT_TOKEN: recipientToken });

async function withService<T>(work: (service: Service) => Promise<T>): Promise<T> {
  const service = new Service({ dataDir: home.dir });
  try {
    return await work(service);
  } finally {
    service.close();
  }
}

beforeAll(async () => {
  await withService(async (service) => {
    const a = await service.invoke(ops.createOrg, undefined, { name: 'Sender Org' });
    const b = await service.invoke(ops.createOrg, undefined, { name: 'Receiver Org' });
    senderOwner = `Bearer ${a.api_key}`;
    const alice = await service.invoke(ops.createGrant, senderOwner, { agent: 'Alice', columns: ['id'] });
    const bob = await service.invoke(ops.createGrant, `Bearer ${b.api_key}`, {
      agent: 'Bob',
      columns: ['id'],
    });
    senderBearer = `Bearer ${alice.grant_token}`;
    recipientToken = bob.grant_token;
  });
});
afterAll(() => home.cleanup());

describe('svc inbox', () => {
  it('before enrolling, list refuses with what to run (exit 1); a bad id is usage (exit 2)', async () => {
    const list = await runSvc(['inbox', 'list'], asRecipient());
    expect(list.code).toBe(1);
    expect(list.stderr).toMatch(/svc inbox address/);
    expect((await runSvc(['inbox', 'open', 'nope'], asRecipient())).code).toBe(2);
  });

  it('address enrolls once; a sent text opens to stdout; a revoked grant refuses with exit 5', async () => {
    const first = await runSvc(['inbox', 'address', '--json'], asRecipient());
    expect(first.code, first.stderr).toBe(0);
    const { kid, enrolled_now } = first.json() as { kid: string; enrolled_now: boolean };
    expect(enrolled_now).toBe(true);
    expect((await runSvc(['inbox', 'address', '--json'], asRecipient())).json()).toMatchObject({
      kid,
      enrolled_now: false,
    });
    const [first_id, second_id, grantId] = await withService(async (service) => {
      const sender = { invoker: service.invoker, bearer: senderBearer, keys: undefined };
      const { fabricKeyStore, ensureAddress } = await import('../../src/backend/fabric-inbox.ts');
      const senderKid = (await ensureAddress({ ...sender, keys: fabricKeyStore(service.ctx) })).kid;
      const grant = await service.invoke(ops.createFabricGrant, senderOwner, {
        subject_kid: kid,
        allowed_sender_kids: [senderKid],
      });
      const plaintext = (text: string) => new TextEncoder().encode(text);
      const one = await sealAndSend(sender, { to: kid, plaintext: plaintext('first note\n') });
      const two = await sealAndSend(sender, { to: kid, plaintext: plaintext('second note\n') });
      return [one.id, two.id, grant.grant_id];
    });
    const list = await runSvc(['inbox', 'list', '--json'], asRecipient());
    expect((list.json() as { count: number }).count).toBe(2);
    expect(list.stdout).not.toContain('note');
    const senders = await runSvc(['inbox', 'senders', '--json'], asRecipient());
    expect(senders.json()).toMatchObject({ count: 1, grants: [{ grant_id: grantId, status: 'active' }] });

    const opened = await runSvc(['inbox', 'open', first_id], asRecipient());
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toBe('first note\n');
    expect(opened.stderr).toMatch(/receipt rcpt_/);

    await withService((service) => service.invoke(ops.revokeFabricGrant, senderOwner, { grant_id: grantId }));
    const refused = await runSvc(['inbox', 'open', second_id, '--json'], asRecipient());
    expect(refused.code).toBe(5);
    expect(refused.json()).toMatchObject({ error: 'fabric_denied', reasons: ['grant_revoked'] });
    expect(refused.stdout).not.toContain('second note');
  });
});
