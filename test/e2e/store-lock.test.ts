// A store that never blocks the server: while another process holds the write lock, `svc serve`
// keeps answering reads, and the writes it accepts meanwhile all commit once the lock is released.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { request } from 'undici';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { childEnv, killAll, spawnNode, startServe, waitForOutput } from './procs.ts';

const HOLD_MS = 5_000;
const home = tempDir();
afterAll(async () => {
  await killAll();
  home.cleanup();
});

async function call(url: string, method: 'GET' | 'POST', token?: string, body?: unknown) {
  const response = await request(url, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : null,
  });
  return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
}

it('a process holding the write lock for 5 s: svc serve answers reads, queues writes, commits them after', async () => {
  const service = new Service({ dataDir: home.dir });
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const grant = await service.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
    agent: 'Reader',
    columns: ['id', 'region'],
  });
  service.close();
  const serve = await startServe(childEnv({ SVC_HOME: home.dir }));

  const events: string[] = [];
  const holder = spawnNode(
    ['test/e2e/lock-holder.ts', join(home.dir, 'svc.db'), String(HOLD_MS)],
    process.env,
  );
  await waitForOutput(holder, 'stdout', 'locked', 20_000);
  const released = waitForOutput(holder, 'stdout', 'released', 20_000 + HOLD_MS).then(() =>
    events.push('released'),
  );

  // Writes sent while the lock is held: each must wait for it, then commit with its receipt.
  const writes = Array.from({ length: 5 }, (_, i) =>
    call(`${serve.url}/api/access/compute?receipt=true`, 'POST', grant.grant_token, {
      columns: ['id'],
      purpose: `write ${i}`,
    }).then((answer) => {
      events.push('write');
      return answer;
    }),
  );
  // Reads keep being answered while the lock is held. (Reading governed rows is not among them: it
  // appends a signed audit row, so it is a write and waits like the others.)
  const reads = [];
  for (let i = 0; i < 20; i++) {
    const answers = await Promise.all([
      call(`${serve.url}/.well-known/svc-keys.json`, 'GET'),
      call(`${serve.url}/api/v1/agents`, 'GET', org.api_key),
      call(`${serve.url}/access/verify`, 'POST', undefined, { proof_id: grant.receipt_id }),
    ]);
    events.push('reads');
    reads.push(...answers);
  }
  expect(events.includes('released'), 'the reads were answered while the lock was held').toBe(false);
  expect(reads.every((r) => r.status === 200)).toBe(true);
  expect(reads.filter((r) => r.body.authentic === true)).toHaveLength(20);

  const answers = await Promise.all(writes);
  await released;
  // No write could commit before the other process let go of the lock.
  expect(events.indexOf('write')).toBeGreaterThan(events.indexOf('released'));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
  for (const answer of answers) {
    const verdict = await call(`${serve.url}/access/verify`, 'POST', undefined, {
      proof_id: answer.body.proof_id,
    });
    expect(verdict.body).toMatchObject({ found: true, authentic: true, unaltered: true });
  }
  serve.child.kill('SIGTERM');
  await serve.exited;
});
