// Attacks on external API calls, each against a real HTTP server on loopback: an agent (svc_use)
// or an organization key (callSource) trying to read a sealed credential back through what the
// upstream echoes, or to reach a service on the server's own machine or network.
import { text as bodyText } from 'node:stream/consumers';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { MAX_JSON_DEPTH } from '../../src/backend/json-shape.ts';
import type { ServiceError } from '../../src/backend/errors.ts';
import { RESPONSE_BODY_LIMIT } from '../../src/backend/sources.ts';
import { MASK, MASK_WINDOW, MIN_MASKED_LENGTH } from '../../src/scan/mask.ts';

const SECRET = 'sk-live-7f3a9c1e5b2d8f60aa41';
const BASIC = `svc-robot:${SECRET}`;
/** Another credential of the same length and public prefix, with the same first and last characters. */
const DECOY = `sk-live-${'Q'.repeat(19)}1`;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const pythonJson = (value: unknown) =>
  JSON.stringify(value).replace(
    /[\u0080-\uffff]/g,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

/** How the upstream answers: the request's headers and body (or the body alone), in one encoding. */
const SHAPES: Record<string, (dump: { headers: Record<string, unknown>; body: string }) => string> = {
  raw: ({ headers, body }) =>
    `${body}\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${String(v)}`)
      .join('\n')}\n`,
  json: (dump) => JSON.stringify(dump),
  python: (dump) => pythonJson(dump),
  form: ({ headers, body }) =>
    new URLSearchParams({ body, ...(headers as Record<string, string>) }).toString(),
  base64: (dump) => b64(SHAPES.raw!(dump)),
  base64url: (dump) => Buffer.from(SHAPES.json!(dump)).toString('base64url'),
};

/** What the upstream received and answered, last request last. */
const seen: { url: string; body: string; answer: string }[] = [];
let api: Server;
let apiUrl: string;

beforeAll(async () => {
  // /echo/<shape>: headers and body; /reflect/<shape>: the body alone. ?pad=N puts N bytes of the
  // upstream's own before the echo, so the caller moves the echo without sending the padding.
  api = createServer(async (req, res) => {
    const body = await bodyText(req);
    const url = new URL(req.url!, 'http://upstream');
    const [, mode, shape] = url.pathname.split('/');
    const render = SHAPES[shape ?? ''];
    let answer = `${req.method} ${req.url}`;
    if (render && (mode === 'echo' || mode === 'reflect')) {
      const { authorization, ...rest } = req.headers;
      const headers = mode === 'echo' ? { ...rest, authorization } : {};
      answer = 'a'.repeat(Number(url.searchParams.get('pad') ?? 0)) + render({ headers, body });
    }
    seen.push({ url: req.url!, body, answer });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(answer);
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

/** The encodings of a secret an upstream may echo, from the platform's encoders. */
function encodings(secret: string): string[] {
  const bytes = Buffer.from(secret);
  const forms = [
    secret,
    JSON.stringify(secret).slice(1, -1),
    encodeURIComponent(secret),
    new URLSearchParams({ x: secret }).toString().slice(2),
    bytes.toString('base64'),
    new URLSearchParams({ x: bytes.toString('base64') }).toString().slice(2),
  ];
  for (let offset = 0; offset < 3; offset++) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]);
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    for (const encoding of ['base64', 'base64url'] as const) {
      forms.push(shifted.toString(encoding).slice(first, end));
    }
  }
  return forms.filter((f) => f.length >= MIN_MASKED_LENGTH);
}

/** Runs of MASK_WINDOW characters of any encoding of `secret` that `text` shows. */
function leaks(text: string, secret: string): string[] {
  const found = new Set<string>();
  for (const form of encodings(secret)) {
    for (let i = 0; i + MASK_WINDOW <= form.length; i++) {
      if (text.includes(form.slice(i, i + MASK_WINDOW))) found.add(form.slice(i, i + MASK_WINDOW));
    }
  }
  return [...found];
}

/** The longest start of an encoding of `secret` (2 characters or more) that `text` ends with. */
function cutCopy(text: string, secret: string): string | undefined {
  for (const form of encodings(secret)) {
    for (let length = form.length; length >= 2; length--) {
      if (text.endsWith(form.slice(0, length))) return form.slice(0, length);
    }
  }
  return undefined;
}

describe('source answers: the credential never comes back', () => {
  const home = tempDir();
  let service: Service;
  let orgKey: string;
  let agentToken: string;

  beforeAll(async () => {
    service = new Service({ dataDir: home.dir });
    orgKey = `Bearer ${(await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key}`;
    for (const [name, scheme, credential] of [
      ['echo', 'bearer', SECRET],
      ['echo-basic', 'basic', BASIC],
      ['decoy', 'bearer', DECOY],
      ['decoy-basic', 'basic', `svc-robot:${DECOY}`],
    ] as const) {
      await service.invoke(ops.registerSource, orgKey, {
        name,
        base_url: apiUrl,
        scheme,
        credential,
        allow_private_network: true,
      });
    }
    const grant = await service.invoke(ops.createGrant, orgKey, {
      agent: 'Echo Reader',
      columns: ['id'],
      capabilities: ['echo', 'echo-basic', 'decoy', 'decoy-basic'].map((source) => ({
        source,
        methods: ['GET', 'POST'] as ('GET' | 'POST')[],
      })),
    });
    agentToken = `Bearer ${grant.grant_token}`;
  });
  afterAll(() => {
    service.close();
    home.cleanup();
  });

  const call = (who: 'agent' | 'org', source: string, method: 'GET' | 'POST', path: string, body?: string) =>
    who === 'agent'
      ? service.invoke(ops.useCapability, agentToken, { source, method, path, body })
      : service.invoke(ops.callSource, orgKey, { source, method, path, body, confirmed: true });

  // A Basic credential travels base64-encoded: that form, encoded again, must not come back either.
  describe.each([
    ['echo', SECRET, [SECRET]],
    ['echo-basic', BASIC, [BASIC, b64(BASIC)]],
  ])('a source with its credential sent as %s', (source, secret, secrets) => {
    const leaked = (text: string) => secrets.flatMap((s) => leaks(text, s));
    const cut = (text: string) => secrets.map((s) => cutCopy(text, s)).find(Boolean);

    it.each(Object.keys(SHAPES))(
      'padding the answer so the 64 KiB cut falls inside the echoed credential reveals no part of it (%s)',
      async (shape) => {
        // Where the upstream writes the credential without padding, in this shape.
        await call('org', source, 'GET', `echo/${shape}`);
        const plain = seen.at(-1)!.answer;
        const form = secrets
          .flatMap(encodings)
          .filter((f) => plain.includes(f))
          .sort((a, b) => b.length - a.length)[0]!;
        const at = plain.indexOf(form);
        for (const who of ['agent', 'org'] as const) {
          for (const inside of [1, 5, 7, MASK_WINDOW, 13, form.length - 1]) {
            const pad = RESPONSE_BODY_LIMIT - inside - at;
            const result = await call(who, source, 'GET', `echo/${shape}?pad=${pad}`);
            // The upstream's answer was cut `inside` characters into the credential.
            expect(seen.at(-1)!.answer.slice(RESPONSE_BODY_LIMIT - inside, RESPONSE_BODY_LIMIT)).toBe(
              form.slice(0, inside),
            );
            // (Masked first, the answer may have shrunk below the limit: then it is not cut at all.)
            expect(Buffer.byteLength(result.body)).toBeLessThanOrEqual(RESPONSE_BODY_LIMIT);
            expect(leaked(result.body), `${who}, cut ${inside} in`).toEqual([]);
            expect(cut(result.body), `${who}, cut ${inside} in`).toBeUndefined();
          }
        }
      },
    );

    it.each(Object.keys(SHAPES))(
      'an agent guessing the credential from an echo of its own request learns nothing: a guess comes back the same whether it is right or not (%s)',
      async (shape) => {
        // The attacker knows the token's public prefix and guesses one more character at a time,
        // or the whole credential, sent as the body of a call the upstream echoes. The same guess
        // sent to a source whose credential it does not match must come back the same.
        const start = secret.indexOf('sk-live-');
        const guesses = [secret.slice(start + 1, start + MASK_WINDOW + 1), secret];
        const decoy = source.replace('echo', 'decoy');
        for (const guess of guesses) {
          for (const mode of ['echo', 'reflect']) {
            const right = await call('agent', source, 'POST', `${mode}/${shape}`, guess);
            expect(seen.at(-1)!.body).toBe(guess);
            const wrong = await call('agent', decoy, 'POST', `${mode}/${shape}`, guess);
            expect(leaked(right.body)).toEqual([]);
            expect(wrong.body, `${mode}: ${guess}`).toBe(right.body);
          }
        }
      },
    );
  });

  it('a whole answer that echoes the credential comes back masked, not cut', async () => {
    const result = await call('agent', 'echo', 'GET', 'echo/json');
    expect(result.truncated).toBe(false);
    expect(JSON.parse(result.body)).toMatchObject({ headers: { authorization: `Bearer ${MASK}` } });
  });
});

describe('sources reach public addresses only, unless their owner opts in', () => {
  const home = tempDir();
  let service: Service;
  let orgKey: string;
  /** Public-looking names the injected resolver maps to loopback, as a rebinding name would resolve by call time. */
  const LOOPBACK_NAMES = new Set(['crm.example.com', 'rebind.example.net']);

  beforeAll(async () => {
    service = new Service({
      dataDir: home.dir,
      resolveHost: async (hostname) => {
        if (LOOPBACK_NAMES.has(hostname)) return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error(`${hostname} is not known here`), { code: 'ENOTFOUND' });
      },
    });
    orgKey = `Bearer ${(await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key}`;
  });
  afterAll(() => {
    service.close();
    home.cleanup();
  });

  const port = () => new URL(apiUrl).port;
  const register = (name: string, base_url: string, allow_private_network?: boolean) =>
    service.invoke(ops.registerSource, orgKey, {
      name,
      base_url,
      scheme: 'bearer',
      credential: SECRET,
      ...(allow_private_network === undefined ? {} : { allow_private_network }),
    });
  const failure = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (error: unknown) => error as ServiceError,
    );
  const record = async (error: ServiceError) =>
    (await service.invoke(ops.getProof, undefined, { id: String(error.details.receipt_id) })).payload;

  it.each([
    ['loopback', 'http://127.0.0.1:8080/'],
    ['loopback, written in decimal', 'http://2130706433/'],
    ['cloud metadata (link-local)', 'http://169.254.169.254/latest/'],
    ['IPv6 loopback', 'http://[::1]:8080/'],
    ['IPv4-mapped IPv6 loopback', 'http://[::ffff:127.0.0.1]/'],
    ['private (RFC 1918)', 'https://10.0.0.1/'],
    ['private (RFC 1918, 192.168)', 'http://192.168.1.20/'],
    ['carrier-grade NAT', 'http://100.64.0.7/'],
    ['IPv6 unique local', 'http://[fd00::1]/'],
    ['this network', 'http://0.0.0.0:3000/'],
    ['a name for this machine', 'http://localhost:3000/'],
  ])('a base_url at %s is refused at registration without the opt-in', async (_name, base_url) => {
    const error = await failure(register('internal', base_url));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('allow_private_network: true');
    expect(await record(error)).toMatchObject({
      kind: 'source.register.deny',
      name: 'internal',
      reason: 'private_address',
    });
    expect((await service.invoke(ops.listSources, orgKey, {})).sources).toEqual([]);
  });

  it('a public-looking name that resolves to loopback is refused when called, and nothing reaches the service there', async () => {
    // Registration does not resolve names: the address that counts is the one connected to.
    await register('crm', `http://crm.example.com:${port()}/`);
    const before = seen.length;
    const error = await failure(
      service.invoke(ops.callSource, orgKey, { source: 'crm', method: 'GET', path: 'echo/json' }),
    );
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain('127.0.0.1 is a loopback address');
    expect(await record(error)).toMatchObject({
      kind: 'api.call.deny',
      source: 'crm',
      path: '/echo/json',
      reason: 'private_address',
    });
    expect(seen.length).toBe(before);
  });

  it('an agent calling through a name rebound to loopback is refused the same way', async () => {
    await register('rebound', `http://rebind.example.net:${port()}/`);
    const grant = await service.invoke(ops.createGrant, orgKey, {
      agent: 'Rebind Agent',
      columns: ['id'],
      capabilities: [{ source: 'rebound' }],
    });
    const before = seen.length;
    const error = await failure(
      service.invoke(ops.useCapability, `Bearer ${grant.grant_token}`, {
        source: 'rebound',
        method: 'GET',
        path: 'echo/raw',
      }),
    );
    expect(error.code).toBe('forbidden');
    expect(await record(error)).toMatchObject({ kind: 'api.call.deny', reason: 'private_address' });
    expect(seen.length).toBe(before);
  });

  it('with allow_private_network a loopback echo server works, by address and by a name resolved to it', async () => {
    const byAddress = await register('local', apiUrl, true);
    expect(byAddress).toMatchObject({ name: 'local', allow_private_network: true });
    // The opt-in is on the signed record, with who made it; the credential is not.
    const receipt = (await service.invoke(ops.getProof, undefined, { id: byAddress.receipt_id })).payload;
    expect(receipt).toMatchObject({
      kind: 'source.register',
      name: 'local',
      source_id: byAddress.source_id,
      allow_private_network: true,
    });
    expect(receipt).toHaveProperty('key_id');
    expect(JSON.stringify(receipt)).not.toContain(SECRET);
    const listed = (await service.invoke(ops.listSources, orgKey, {})).sources;
    expect(listed.find((s) => s.name === 'local')).toMatchObject({ allow_private_network: true });
    expect(listed.find((s) => s.name === 'crm')).toMatchObject({ allow_private_network: false });
    const direct = await service.invoke(ops.callSource, orgKey, {
      source: 'local',
      method: 'GET',
      path: 'echo/json',
    });
    expect(JSON.parse(direct.body)).toMatchObject({ headers: { authorization: `Bearer ${MASK}` } });
    await register('local-name', `http://crm.example.com:${port()}/`, true);
    const named = await service.invoke(ops.callSource, orgKey, {
      source: 'local-name',
      method: 'GET',
      path: 'echo/json',
    });
    expect(JSON.parse(named.body)).toMatchObject({ headers: { host: `crm.example.com:${port()}` } });
  });

  it('a credential too short to mask (3 characters) is refused at registration, before anything is stored', async () => {
    const error = await failure(
      service.invoke(ops.registerSource, orgKey, {
        name: 'short',
        base_url: 'https://api.example.com/',
        scheme: 'bearer',
        credential: 'abc',
      }),
    );
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/at least 8 characters/);
    expect((await service.invoke(ops.listSources, orgKey, {})).sources.map((s) => s.name)).not.toContain(
      'short',
    );
  });

  it('a source stored without the opt-in that points at an IP literal is refused when called', async () => {
    // As a source registered before addresses were checked would be.
    await register('legacy', apiUrl, true);
    await service.ctx.store.write(() =>
      service.ctx.store.run("UPDATE sources SET allow_private_network = 0 WHERE name = 'legacy'"),
    );
    const before = seen.length;
    const error = await failure(
      service.invoke(ops.callSource, orgKey, { source: 'legacy', method: 'GET', path: 'echo/raw' }),
    );
    expect(error.code).toBe('forbidden');
    expect(await record(error)).toMatchObject({ kind: 'api.call.deny', reason: 'private_address' });
    expect(seen.length).toBe(before);
  });
});

describe('a path is checked as it is sent', () => {
  const home = tempDir();
  let service: Service;
  let orgKey: string;
  let agentToken: string;

  beforeAll(async () => {
    service = new Service({ dataDir: home.dir });
    orgKey = `Bearer ${(await service.invoke(ops.createOrg, undefined, { name: 'Acme' })).api_key}`;
    await service.invoke(ops.registerSource, orgKey, {
      name: 'crm',
      base_url: apiUrl,
      scheme: 'bearer',
      credential: SECRET,
      allow_private_network: true,
    });
    const grant = await service.invoke(ops.createGrant, orgKey, {
      agent: 'Contacts Reader',
      columns: ['id'],
      capabilities: [{ source: 'crm', methods: ['GET'], path_prefix: 'contacts' }],
    });
    agentToken = `Bearer ${grant.grant_token}`;
  });
  afterAll(() => {
    service.close();
    home.cleanup();
  });

  const use = (path: string) =>
    service.invoke(ops.useCapability, agentToken, { source: 'crm', method: 'GET', path });
  const callAsOrg = (path: string) =>
    service.invoke(ops.callSource, orgKey, { source: 'crm', method: 'GET', path });
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => error as ServiceError,
    );

  it.each([
    ['contacts%2F..%2Fadmin', 'encoded_separator'],
    ['contacts%2f..%2fadmin', 'encoded_separator'],
    ['contacts/%5C..%5Cadmin', 'encoded_separator'],
    ['contacts\\..\\admin', 'encoded_separator'],
    ['contacts/%2e%2e/admin', 'encoded_dot'],
    ['contacts/%2E./admin', 'encoded_dot'],
    ['contacts/%', 'malformed_path'],
    ['contacts/%zz', 'malformed_path'],
    ['contacts/%FF', 'malformed_path'],
    ['contacts/%E2%82', 'malformed_path'],
  ])(
    'the path %s, which an upstream could decode into another path, is refused for an agent and an organization key alike (%s), and never sent',
    async (path, reason) => {
      const before = seen.length;
      for (const attempt of [use(path), callAsOrg(path)]) {
        const error = await refusal(attempt);
        expect(error?.code, path).toBe('invalid_request');
        expect(error?.details).toMatchObject({ field: 'path' });
        const proof = await service.invoke(ops.getProof, undefined, {
          id: String(error?.details.receipt_id),
        });
        expect(proof.payload).toMatchObject({ kind: 'api.call.deny', source: 'crm', reason });
      }
      expect(seen.length).toBe(before);
    },
  );

  it('a capability on contacts does not reach /admin through contacts%2F..%2Fadmin: the upstream never sees it', async () => {
    const before = seen.length;
    expect((await refusal(use('contacts%2F..%2Fadmin')))?.code).toBe('invalid_request');
    expect(seen.slice(before).map((r) => r.url)).toEqual([]);
  });

  it('contacts/% is a clear 400, not a 500', async () => {
    const error = await refusal(use('contacts/%'));
    expect(error?.status).toBe(400);
    expect(error?.message).toContain('%25');
  });

  it('the path the upstream receives is the one checked and receipted', async () => {
    for (const path of ['contacts/a b', 'contacts/caf%C3%A9', 'contacts/./7', 'contacts/x/../7']) {
      const result = await use(path);
      const received = seen.at(-1)!.url;
      expect(received).toBe(new URL(result.url).pathname);
      const proof = await service.invoke(ops.getProof, undefined, { id: result.receipt_id });
      expect(proof.payload).toMatchObject({ kind: 'api.call', path: received });
      expect(decodeURIComponent(received).startsWith('/contacts/')).toBe(true);
    }
  });
});

describe('a call body nested beyond the bound', () => {
  // Written out by hand: JSON.stringify itself runs out of stack on such a value.
  const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
  const nested = (depth: number): unknown => JSON.parse(nestedText(depth));

  it(`a body nested 10,000 deep on a source call is a clear 400 naming the bound (${MAX_JSON_DEPTH}), not a 500, over HTTP and in process`, async () => {
    const h = harness();
    try {
      const org = await h.service.invoke(ops.createOrg, undefined, { name: 'Acme' });
      await h.service.invoke(ops.registerSource, `Bearer ${org.api_key}`, {
        name: 'crm',
        base_url: apiUrl,
        scheme: 'bearer',
        credential: SECRET,
        allow_private_network: true,
      });
      const grant = await h.service.invoke(ops.createGrant, `Bearer ${org.api_key}`, {
        agent: 'Writer',
        columns: ['id'],
        capabilities: [{ source: 'crm', methods: ['POST'] }],
      });
      const before = seen.length;
      const body = nested(10_000);
      const overHttp = [
        await h.request('POST', '/api/v1/sources/crm/call', {
          token: org.api_key,
          body: `{"method":"POST","path":"notes","confirmed":true,"body":${nestedText(10_000)}}`,
        }),
        await h.request('POST', '/api/access/use', {
          token: grant.grant_token,
          body: `{"source":"crm","method":"POST","path":"notes","body":${nestedText(10_000)}}`,
        }),
      ];
      for (const answer of overHttp) {
        expect(answer.status).toBe(400);
        expect(answer.body).toMatchObject({ error: 'invalid_request' });
        expect(answer.body.message).toContain(`deeper than ${MAX_JSON_DEPTH} levels`);
      }
      const inProcess = await h.service
        .invoke(ops.useCapability, `Bearer ${grant.grant_token}`, {
          source: 'crm',
          method: 'POST',
          path: 'notes',
          body,
        })
        .then(
          () => undefined,
          (error: unknown) => error as ServiceError,
        );
      expect(inProcess?.code).toBe('invalid_request');
      expect(seen.length).toBe(before);
      // At the bound itself the call goes out: the input is level 1, the body's outer object level 2.
      const deepest = await h.service.invoke(ops.useCapability, `Bearer ${grant.grant_token}`, {
        source: 'crm',
        method: 'POST',
        path: 'notes',
        body: nested(MAX_JSON_DEPTH - 1),
      });
      expect(deepest.status).toBe(200);
    } finally {
      h.close();
    }
  });
});
