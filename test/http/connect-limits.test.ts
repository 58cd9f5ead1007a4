// The unauthenticated side of svc_connect over real loopback HTTP: starting requests is limited per
// client address, and the approval page limits wrong user codes per address and in all, so a code
// cannot be found by trying. Time moves on the service's clock; nothing waits.
import { request as httpRequest } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { tempDir, testClock } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { CONNECT_STARTS_PER_CLIENT } from '../../src/backend/connect.ts';
import { WRONG_CODES_IN_ALL, WRONG_CODES_PER_CLIENT } from '../../src/http/connect-pages.ts';
import type { RunningServer } from '../../src/http/server.ts';
import { addressKey } from '../../src/http/limits.ts';
import { serve } from '../../src/entry/serve.ts';

const machine = { machine_id: 'a'.repeat(32), hostname: 'laptop', platform: 'linux', arch: 'x64' };

let home: ReturnType<typeof tempDir>;
let clock: ReturnType<typeof testClock>;
let service: Service;
let server: RunningServer;
beforeEach(async () => {
  home = tempDir();
  clock = testClock();
  service = new Service({ dataDir: home.dir, clock });
  server = await serve({ service, port: 0 });
});
afterEach(async () => {
  await server.close();
  home.cleanup();
});

interface Answer {
  status: number;
  retryAfter: string | undefined;
  text: string;
}

/**
 * One request over loopback from a chosen source address (any of 127.0.0.0/8 reaches the server),
 * so tests can be several clients.
 */
function send(
  method: 'GET' | 'POST',
  path: string,
  options: { from?: string; form?: Record<string, string>; json?: unknown } = {},
): Promise<Answer> {
  const url = new URL(path, server.url);
  const body = options.form
    ? new URLSearchParams(options.form).toString()
    : options.json !== undefined
      ? JSON.stringify(options.json)
      : undefined;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        method,
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        headers: body
          ? {
              'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
              'content-length': Buffer.byteLength(body),
            }
          : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string, text }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `count` distinct user codes of the right shape, none of them `real`. */
function wrongCodes(real: string, count: number, offset = 0): string[] {
  const letters = 'BCDFGHJKLMNPQRSTVWXZ';
  const codes: string[] = [];
  for (let i = offset; codes.length < count; i++) {
    const digits = Array.from(
      { length: 8 },
      (_, d) => letters[Math.floor(i / letters.length ** d) % letters.length],
    );
    const code = `${digits.slice(0, 4).join('')}-${digits.slice(4).join('')}`;
    if (code !== real) codes.push(code);
  }
  return codes;
}

const rows = async () =>
  (await service.ctx.store.get<{ n: number }>('SELECT COUNT(*) AS n FROM connect_requests'))!.n;

it('a flood of connect-start requests from one address is cut off at 30 with 429 and Retry-After, and stores nothing more', async () => {
  const answers: Answer[] = [];
  for (let i = 0; i < 200; i++) answers.push(await send('POST', '/api/v1/connect/device', { json: machine }));
  const started = answers.filter((a) => a.status === 200);
  expect(started).toHaveLength(CONNECT_STARTS_PER_CLIENT.burst);
  const refused = answers.filter((a) => a.status === 429);
  expect(refused).toHaveLength(200 - CONNECT_STARTS_PER_CLIENT.burst);
  expect(refused[0]!.retryAfter).toBe(String(CONNECT_STARTS_PER_CLIENT.refillSeconds));
  expect(JSON.parse(refused[0]!.text)).toMatchObject({
    error: 'rate_limited',
    message: expect.stringMatching(/from this address.*retry in 20 s/),
    retry_after_seconds: 20,
  });
  expect(await rows()).toBe(CONNECT_STARTS_PER_CLIENT.burst);
  // Another address has its own allowance; this one gets one more start every 20 s.
  expect((await send('POST', '/api/v1/connect/device', { json: machine, from: '127.0.0.2' })).status).toBe(
    200,
  );
  clock.advance(CONNECT_STARTS_PER_CLIENT.refillSeconds * 1000);
  expect((await send('POST', '/api/v1/connect/device', { json: machine })).status).toBe(200);
  expect((await send('POST', '/api/v1/connect/device', { json: machine })).status).toBe(429);
});

it('rapid wrong user-code guesses on the approval page get 429, and meanwhile the right code is not looked up, approved or denied', async () => {
  const org = await service.invoke(ops.createOrg, undefined, { name: 'Acme' });
  const started = await service.invoke(ops.startConnect, undefined, machine);
  const page = (code: string) => send('GET', `/connect?code=${encodeURIComponent(code)}`);
  // The right code, looked up again and again, uses up nothing.
  for (let i = 0; i < 2 * WRONG_CODES_PER_CLIENT.burst; i++)
    expect((await page(started.user_code)).status).toBe(200);

  const guesses = wrongCodes(started.user_code, 50);
  const answers = [];
  for (const code of guesses) answers.push(await page(code));
  expect(answers.slice(0, WRONG_CODES_PER_CLIENT.burst).map((a) => a.status)).toEqual(
    Array(WRONG_CODES_PER_CLIENT.burst).fill(404),
  );
  const throttled = answers.slice(WRONG_CODES_PER_CLIENT.burst);
  expect(throttled.every((a) => a.status === 429 && a.retryAfter === '60')).toBe(true);
  expect(throttled[0]!.text).toContain('Too many attempts');

  // A throttled client learns nothing about the right code, and cannot use it.
  const right = await page(started.user_code);
  expect(right.status).toBe(429);
  expect(right.text).not.toContain('laptop');
  const approve = await send('POST', '/connect', {
    form: { code: started.user_code, decision: 'approve', api_key: org.api_key },
  });
  const deny = await send('POST', '/connect', { form: { code: started.user_code, decision: 'deny' } });
  expect([approve.status, deny.status]).toEqual([429, 429]);
  expect(await service.invoke(ops.pollConnect, undefined, { device_code: started.device_code })).toEqual({
    status: 'pending',
  });

  // A minute later the person's own attempt goes through.
  clock.advance(WRONG_CODES_PER_CLIENT.refillSeconds * 1000);
  expect((await page(started.user_code)).status).toBe(200);
  const approved = await send('POST', '/connect', {
    form: { code: started.user_code, decision: 'approve', api_key: org.api_key },
  });
  expect(approved.status).toBe(200);
  expect(approved.text).toContain('Approved');
});

it('wrong user codes sent all at once cannot overrun the limit', async () => {
  const started = await service.invoke(ops.startConnect, undefined, machine);
  const answers = await Promise.all(
    wrongCodes(started.user_code, 40).map((code) => send('GET', `/connect?code=${code}`)),
  );
  expect(answers.filter((a) => a.status === 404)).toHaveLength(WRONG_CODES_PER_CLIENT.burst);
  expect(answers.filter((a) => a.status === 429)).toHaveLength(40 - WRONG_CODES_PER_CLIENT.burst);
});

it("a guesser trying a code every second for the code's whole 10 minutes gets about 20 looked up, never the right one", async () => {
  const started = await service.invoke(ops.startConnect, undefined, machine);
  let lookedUp = 0;
  for (const code of wrongCodes(started.user_code, 600)) {
    const answer = await send('POST', '/connect', { form: { code, decision: 'deny' } });
    if (answer.status !== 429) lookedUp++;
    clock.advance(1000);
  }
  // 10 at once, then one a minute: at most 20 of the 20^8 possible codes.
  expect(lookedUp).toBeGreaterThanOrEqual(WRONG_CODES_PER_CLIENT.burst);
  expect(lookedUp).toBeLessThanOrEqual(WRONG_CODES_PER_CLIENT.burst + 10);
  expect(await service.invoke(ops.pollConnect, undefined, { device_code: started.device_code })).toEqual({
    status: 'expired',
  });
});

it('wrong codes from many addresses stop at 60 in all: every address then gets 429, a new one too', async () => {
  const started = await service.invoke(ops.startConnect, undefined, machine);
  const guesses = wrongCodes(started.user_code, 70);
  const answers: Answer[] = [];
  // Seven addresses, ten wrong codes each: each stays within its own limit.
  for (let i = 0; i < 70; i++) {
    answers.push(
      await send('GET', `/connect?code=${guesses[i]}`, { from: `127.0.0.${10 + Math.floor(i / 10)}` }),
    );
  }
  expect(answers.filter((a) => a.status === 404)).toHaveLength(WRONG_CODES_IN_ALL.burst);
  expect(answers.slice(WRONG_CODES_IN_ALL.burst).every((a) => a.status === 429)).toBe(true);
  const fresh = await send('GET', `/connect?code=${started.user_code}`, { from: '127.0.0.99' });
  expect(fresh.status).toBe(429);
  expect(fresh.retryAfter).toBe(String(WRONG_CODES_IN_ALL.refillSeconds));
  // The shared limit refused it, not the fresh address's own: its allowance is untouched.
  clock.advance(WRONG_CODES_IN_ALL.refillSeconds * 1000);
  expect((await send('GET', `/connect?code=${started.user_code}`, { from: '127.0.0.99' })).status).toBe(200);
});

it('keys clients by address: IPv4 as it is, IPv6 by its /64, so one host cannot rotate through its own addresses', () => {
  expect(addressKey('127.0.0.1')).toBe('127.0.0.1');
  expect(addressKey('::ffff:10.1.2.3')).toBe('10.1.2.3');
  expect(addressKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
  expect(addressKey('2001:db8:0:1:ffff:eeee:dddd:cccc')).toBe('2001:db8:0:1::/64');
  expect(addressKey('::1')).toBe('0:0:0:0::/64');
  expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
});
