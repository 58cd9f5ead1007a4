// Linking a computer (RFC 8628 style) in the core: the computer's key carries no more than the
// approver's scopes, is made when collected, is delivered once and is recorded on the node.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers.ts';
import { ServiceError } from '../../src/backend/errors.ts';

let h: Harness;
beforeEach(() => {
  h = harness();
});
afterEach(() => h.close());

const machine = { machine_id: 'a'.repeat(32), hostname: 'laptop', platform: 'linux', arch: 'x64' };

it('approval by a governance key gives the computer a governance key, delivered once', () => {
  const org = h.service.createOrg('Acme');
  const governance = h.service.createApiKey(org.org_id, ['governance']).api_key;
  const started = h.service.startConnect(machine);
  expect(h.service.pollConnect(started.device_code)).toEqual({ status: 'pending' });
  expect(h.service.describeConnect(started.user_code.toLowerCase().replace('-', ' '))).toMatchObject({
    hostname: 'laptop',
    status: 'pending',
  });
  h.service.decideConnect(started.user_code, 'approve', `Bearer ${governance}`);
  const delivered = h.service.pollConnect(started.device_code);
  expect(delivered).toMatchObject({ status: 'approved', org_id: org.org_id });
  const key = (delivered as { api_key: string }).api_key;
  expect(h.service.whoami(h.service.authenticate(`Bearer ${key}`))).toMatchObject({ scopes: ['governance'] });
  expect(() => h.service.pollConnect(started.device_code)).toThrow(ServiceError);
  const node = h.service.ctx.store.get<{ key_id: string }>(
    'SELECT key_id FROM nodes WHERE hostname = ?',
    'laptop',
  );
  expect(node?.key_id).toBe((delivered as { key_id: string }).key_id);
});

it('approving needs a valid key; a decided or expired code cannot be decided again', () => {
  h.service.createOrg('Acme');
  const started = h.service.startConnect(machine);
  expect(() => h.service.decideConnect(started.user_code, 'approve', 'Bearer ndp_nope')).toThrow(
    /malformed|unknown/,
  );
  h.service.decideConnect(started.user_code, 'deny');
  expect(h.service.pollConnect(started.device_code)).toEqual({ status: 'denied' });
  expect(() => h.service.decideConnect(started.user_code, 'deny')).toThrow(/already denied/);
  const late = h.service.startConnect(machine);
  h.clock.advance(10 * 60 * 1000 + 1);
  expect(h.service.pollConnect(late.device_code)).toEqual({ status: 'expired' });
  expect(() => h.service.decideConnect(late.user_code, 'deny')).toThrow(/expired/);
});
