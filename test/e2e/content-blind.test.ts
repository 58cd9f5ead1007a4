// Content-blind: after a send and a fetch, no file in the data dir (database, WAL, keys, logs)
// holds the plaintext or either agent's private key, in any common encoding.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { startServer } from '../../src/http/server.ts';
import { SvcClient, generateFabricKeyPair, openEnvelope, sealEnvelope } from '../../src/sdk/index.ts';

const { dir, cleanup } = tempDir();
afterAll(cleanup);

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function encodings(bytes: Buffer): Buffer[] {
  return [
    bytes,
    Buffer.from(bytes.toString('hex')),
    Buffer.from(bytes.toString('base64')),
    Buffer.from(bytes.toString('base64url')),
  ];
}

function leaks(needles: Buffer[]): string[] {
  return filesUnder(dir).filter((file) => {
    const content = readFileSync(file);
    return needles.some((needle) => content.includes(needle));
  });
}

it('the data dir never holds the plaintext or a private key', async () => {
  const service = new Service({ dataDir: dir });
  const server = await startServer({ service, port: 0 });
  const plaintext = `merger terms: ${'confidential clause '.repeat(20)}end`;
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const owner = new SvcClient({ baseUrl: server.url, token: org.api_key });
  const agent = async (name: string) => {
    const grant = await owner.call<{ grant_token: string; handle: string }>(
      'POST',
      '/api/v1/governance/grant',
      { agent: name, columns: ['id'] },
    );
    const keys = await generateFabricKeyPair();
    const client = new SvcClient({ baseUrl: server.url, token: grant.grant_token });
    const { kid } = await client.enrollFabric(grant.handle, keys);
    return { ...grant, keys, kid, client };
  };
  const sender = await agent('Sender');
  const recipient = await agent('Recipient');
  await owner.call('POST', '/api/v1/fabric-grants', { subject_kid: recipient.kid });
  const sealed = await sealEnvelope({ plaintext, recipientPublicKeyHex: recipient.keys.publicKeyHex });
  const sent = await sender.client.call<{ id: string }>('POST', `/api/agents/${sender.handle}/fabric/send`, {
    recipient_kid: recipient.kid,
    ciphertext_b64: sealed.ciphertext_b64,
    wrapped_key_b64: sealed.wrapped_key_b64,
    payload_iv_b64: sealed.payload_iv_b64,
  });
  const fetched = await recipient.client.call<{
    ciphertext_b64: string;
    wrapped_key_b64: string;
    payload_iv_b64: string;
  }>('POST', `/api/agents/${recipient.handle}/fabric/fetch`, { blob_id: sent.id });
  expect(
    new TextDecoder().decode(
      await openEnvelope({ ...fetched, recipientPrivateKeyHex: recipient.keys.privateKeyHex }),
    ),
  ).toBe(plaintext);

  const needles = [
    ...encodings(Buffer.from(plaintext)),
    Buffer.from('merger terms'),
    ...encodings(Buffer.from(sender.keys.privateKeyHex, 'hex')),
    ...encodings(Buffer.from(recipient.keys.privateKeyHex, 'hex')),
  ];
  // While serving (WAL and shared memory present) and after a clean shutdown.
  expect(filesUnder(dir).some((f) => f.endsWith('-wal'))).toBe(true);
  expect(leaks(needles)).toEqual([]);
  // The needles are findable: the ciphertext the service stores is in the data dir.
  expect(leaks([Buffer.from(sealed.ciphertext_b64.slice(0, 64))]).length).toBeGreaterThan(0);
  await server.close();
  expect(leaks(needles)).toEqual([]);
});
