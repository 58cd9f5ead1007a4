// Linking a computer (RFC 8628 style) in the core: the computer's key carries no more than the
// approver's scopes, is made when collected, is delivered once and is recorded on the node. Anyone
// may start a request or try a code, so both are bounded: the requests held, the guesses a code takes.
import { ops } from '../../src/backend/operations/index.ts';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { CONNECT_MAX_MISSES, CONNECT_MAX_OPEN_REQUESTS } from '../../src/backend/connect.ts';

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

const rows = async () =>
  (await h.service.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM connect_requests'))!.n;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as ServiceError,
  );

it('a flood of connect starts stops at 1000 requests nobody approved: the next is 429 with the wait, denying its own requests makes no room, and the table grows no further', async () => {
  const flood = await Promise.all(
    Array.from({ length: CONNECT_MAX_OPEN_REQUESTS }, () =>
      h.service.invoke(ops.startConnect, undefined, machine),
    ),
  );
  expect(await rows()).toBe(CONNECT_MAX_OPEN_REQUESTS);
  const refused = await refusal(h.service.invoke(ops.startConnect, undefined, machine));
  expect(refused).toMatchObject({ code: 'rate_limited', status: 429 });
  // The oldest request goes 10 minutes after it expired: 20 minutes from now.
  expect(refused?.details).toEqual({ retry_after_seconds: 20 * 60 });
  // A flooder that denies its own requests frees nothing: denied ones count until they are removed.
  for (const started of flood.slice(0, 10)) {
    await h.service.invoke(ops.denyConnect, undefined, { user_code: started.user_code });
  }
  expect((await refusal(h.service.invoke(ops.startConnect, undefined, machine)))?.code).toBe('rate_limited');
  expect(await rows()).toBe(CONNECT_MAX_OPEN_REQUESTS);

  // Once they are past their keeping time, a start removes a bounded batch of them and gets in.
  h.clock.advance(20 * 60 * 1000 + 1000);
  const late = await h.service.invoke(ops.startConnect, undefined, machine);
  expect(await rows()).toBeLessThan(CONNECT_MAX_OPEN_REQUESTS);
  expect(await h.service.invoke(ops.pollConnect, undefined, { device_code: late.device_code })).toEqual({
    status: 'pending',
  });
  // A request removed with the rest is unknown from then on.
  await expect(
    h.service.invoke(ops.pollConnect, undefined, { device_code: flood[0]!.device_code }),
  ).rejects.toMatchObject({ code: 'not_found' });
});

it('a thousand wrong user codes tried while a code is pending withdraw it: it can no longer be approved, and the device hears expired', async () => {
  const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const started = await h.service.invoke(ops.startConnect, undefined, machine);
  const wrong = wrongCodes(started.user_code, CONNECT_MAX_MISSES);
  const guess = (code: string) =>
    refusal(h.service.invoke(ops.describeConnect, undefined, { user_code: code }));
  const misses = await Promise.all(wrong.slice(0, -1).map(guess));
  expect(misses.every((e) => e?.code === 'not_found')).toBe(true);
  expect(
    await h.service.invoke(ops.describeConnect, undefined, { user_code: started.user_code }),
  ).toMatchObject({ status: 'pending' });

  expect((await guess(wrong.at(-1)!))?.code).toBe('not_found');
  expect(
    await h.service.invoke(ops.describeConnect, undefined, { user_code: started.user_code }),
  ).toMatchObject({ status: 'expired' });
  const approval = await refusal(
    h.service.invoke(ops.approveConnect, `Bearer ${org.api_key}`, { user_code: started.user_code }),
  );
  expect(approval).toMatchObject({ code: 'gone', message: expect.stringMatching(/too many wrong codes/) });
  expect(approval?.details.receipt_id).toMatch(/^rcpt_/);
  expect(await h.service.invoke(ops.pollConnect, undefined, { device_code: started.device_code })).toEqual({
    status: 'expired',
  });
  // The guesses count against the codes pending when they were made, not against later ones.
  const next = await h.service.invoke(ops.startConnect, undefined, machine);
  expect(await h.service.invoke(ops.describeConnect, undefined, { user_code: next.user_code })).toMatchObject(
    { status: 'pending' },
  );
});

/** `count` distinct user codes of the right shape, none of them `real`. */
function wrongCodes(real: string, count: number): string[] {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  const codes: string[] = [];
  for (let i = 0; codes.length < count; i++) {
    const digits = Array.from(
      { length: 8 },
      (_, d) => letters[Math.floor(i / letters.length ** d) % letters.length],
    );
    const code = `${digits.slice(0, 4).join('')}-${digits.slice(4).join('')}`;
    if (code !== real) codes.push(code);
  }
  return codes;
}
