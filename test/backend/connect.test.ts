// Linking a computer (RFC 8628 style) in the core: the computer's key carries no more than the
// approver's scopes, is made when collected, is delivered once and is recorded on the node.
import { ops } from '../../src/backend/operations/index.ts';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers.ts';
import { ServiceError } from '../../src/backend/errors.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

const machine = { machine_id: 'a'.repeat(32), hostname: 'laptop', platform: 'linux', arch: 'x64' };

it('approval by a governance key gives the computer a governance key, delivered once', async () => {
  const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const governance = (
    await h.service.invoke(ops.createApiKey, undefined, { org_id: org.org_id, scopes: ['governance'] })
  ).api_key;
  const started = await h.service.invoke(ops.startConnect, undefined, machine);
  expect(await h.service.invoke(ops.pollConnect, undefined, { device_code: started.device_code })).toEqual({
    status: 'pending',
  });
  expect(
    await h.service.invoke(ops.describeConnect, undefined, {
      user_code: started.user_code.toLowerCase().replace('-', ' '),
    }),
  ).toMatchObject({
    hostname: 'laptop',
    status: 'pending',
  });
  await h.service.invoke(ops.approveConnect, `Bearer ${governance}`, { user_code: started.user_code });
  const delivered = await h.service.invoke(ops.pollConnect, undefined, { device_code: started.device_code });
  expect(delivered).toMatchObject({ status: 'approved', org_id: org.org_id });
  const key = (delivered as { api_key: string }).api_key;
  expect(await h.service.invoke(ops.whoami, `Bearer ${key}`, {})).toMatchObject({ scopes: ['governance'] });
  await expect(
    h.service.invoke(ops.pollConnect, undefined, { device_code: started.device_code }),
  ).rejects.toThrow(ServiceError);
  const node = await h.service.ctx.store.get<{ key_id: string }>(
    'SELECT key_id FROM nodes WHERE hostname = ?',
    'laptop',
  );
  expect(node?.key_id).toBe((delivered as { key_id: string }).key_id);
});

it('approving needs a valid key; a decided or expired code cannot be decided again', async () => {
  await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const started = await h.service.invoke(ops.startConnect, undefined, machine);
  await expect(
    h.service.invoke(ops.approveConnect, 'Bearer ndp_nope', { user_code: started.user_code }),
  ).rejects.toThrow(/malformed|unknown/);
  await h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code });
  expect(await h.service.invoke(ops.pollConnect, undefined, { device_code: started.device_code })).toEqual({
    status: 'denied',
  });
  await expect(
    h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code }),
  ).rejects.toThrow(/already denied/);
  const late = await h.service.invoke(ops.startConnect, undefined, machine);
  h.clock.advance(10 * 60 * 1000 + 1);
  expect(await h.service.invoke(ops.pollConnect, undefined, { device_code: late.device_code })).toEqual({
    status: 'expired',
  });
  await expect(h.service.invoke(ops.denyConnect, undefined, { user_code: late.user_code })).rejects.toThrow(
    /expired/,
  );
});
