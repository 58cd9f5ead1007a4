// Benchmark `http-compute`: `svc serve` as a child process, loaded by autocannon with
// POST /api/access/compute?receipt=true, against a floor server under the same load in the same
// run: bare node:http that parses the JSON, signs one Ed25519 signature and commits one SQLite
// WAL row per request, answering a body of svc's size (bench/floor-server.ts). Their rounds
// alternate, so drift on a shared machine hits both. A bare JSON server is measured once as
// context. Servers run apart from autocannon so the load generator and the server under test do
// not share one event loop.
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import {
  atLeast,
  atMost,
  median,
  progress,
  REPO_ROOT,
  spawnServer,
  withTempDir,
  type Benchmark,
  type ChildServer,
} from './lib.ts';

const TARGET_RATIO = 0.5;
const CONNECTIONS = 10;
const DURATION_S = 4;
const WARMUP_S = 1;
const ROUNDS = 3;
const P99_TARGET_MS = 10;
const BODY = JSON.stringify({ columns: ['id', 'email'], purpose: 'benchmark' });

/** Creates the organization and grant with a Service of its own, closed before the server starts. */
async function prepareStore(dataDir: string): Promise<string> {
  const service = new Service({ dataDir });
  try {
    const { api_key: apiKey } = await service.invoke(ops.createOrg, undefined, { name: 'Bench Org' });
    const grant = await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
      agent: 'bench agent',
      columns: ['id', 'region', 'email'],
    });
    return grant.grant_token;
  } finally {
    service.close();
  }
}

/** Starts a server, checks one request answers 200, loads it, and always stops it. */
async function load(
  what: string,
  start: () => Promise<ChildServer>,
  path: string,
  headers: Record<string, string>,
): Promise<{ result: Result; responseBytes: number }> {
  const server = await start();
  try {
    const url = server.url + path;
    // One request first, so a misconfigured run fails with the server's answer, not a count.
    const probe = await fetch(url, { method: 'POST', headers, body: BODY });
    const answer = await probe.text();
    if (probe.status !== 200) throw new Error(`${what} answered ${probe.status}: ${answer}`);
    progress(`${what} (pid ${server.pid}) at ${server.url}: ${WARMUP_S} s warm-up, ${DURATION_S} s load`);
    const result = await autocannon({
      url,
      method: 'POST',
      headers,
      body: BODY,
      connections: CONNECTIONS,
      duration: DURATION_S,
      warmup: { connections: CONNECTIONS, duration: WARMUP_S },
    });
    progress(`${what}: ${Math.round(result.requests.average)} req/s, p99 ${result.latency.p99} ms`);
    return { result, responseBytes: Buffer.byteLength(answer) };
  } finally {
    await server.stop();
  }
}

/** Non-2xx answers and socket errors (timeouts included), warm-up counted too. */
function failures(result: Result): { non2xx: number; errors: number } {
  return {
    non2xx: result.non2xx + (result.warmup?.non2xx ?? 0),
    errors: result.errors + (result.warmup?.errors ?? 0),
  };
}

export const httpCompute: Benchmark = {
  name: 'http-compute',
  description:
    'svc serve (child process) POST /api/access/compute?receipt=true vs a floor server (parse, sign, one WAL commit)',
  run: () =>
    withTempDir('http', async (dataDir) => {
      const grantToken = await prepareStore(dataDir);
      const headers = { 'content-type': 'application/json' };
      const svcServer = () =>
        spawnServer([join(REPO_ROOT, 'bin', 'svc.js'), 'serve', '--port', '0'], {
          env: { ...process.env, SVC_HOME: dataDir },
          urlPattern: /^svc is serving on (\S+)/,
        });
      const svcHeaders = { ...headers, authorization: `Bearer ${grantToken}` };
      const svcPath = process.env.BENCH_HTTP_PATH ?? '/api/access/compute?receipt=true';

      const { result: bare } = await load(
        'bare node:http server (context)',
        () =>
          spawnServer([join(REPO_ROOT, 'bench', 'bare-http-server.ts')], {
            urlPattern: /listening on (\S+)/,
          }),
        '/compute',
        headers,
      );
      const svcRuns: Result[] = [];
      const floorRuns: Result[] = [];
      let responseBytes = 0;
      for (let round = 1; round <= ROUNDS; round++) {
        const svc = await load(`svc serve, round ${round}`, svcServer, svcPath, svcHeaders);
        responseBytes = svc.responseBytes;
        svcRuns.push(svc.result);
        const floor = await load(
          `floor server, round ${round}`,
          () =>
            spawnServer([join(REPO_ROOT, 'bench', 'floor-server.ts'), dataDir], {
              env: { ...process.env, FLOOR_ANSWER_BYTES: String(responseBytes) },
              urlPattern: /listening on (\S+)/,
            }),
          '/compute',
          headers,
        );
        floorRuns.push(floor.result);
      }
      const rate = (runs: Result[]) => median(runs.map((r) => r.requests.average));
      const p99 = (runs: Result[]) => median(runs.map((r) => r.latency.p99));
      const ratio = rate(svcRuns) / rate(floorRuns);
      const svcFailures = svcRuns
        .map(failures)
        .reduce((a, b) => ({ non2xx: a.non2xx + b.non2xx, errors: a.errors + b.errors }));
      return {
        metrics: [
          { key: 'svc_requests_per_sec', label: 'svc compute+receipt', value: rate(svcRuns), unit: 'req/s' },
          {
            key: 'floor_requests_per_sec',
            label: 'floor: parse, sign, WAL commit',
            value: rate(floorRuns),
            unit: 'req/s',
          },
          {
            key: 'bare_requests_per_sec',
            label: 'bare node:http JSON (context)',
            value: bare.requests.average,
            unit: 'req/s',
          },
          {
            key: 'svc_latency_p50_ms',
            label: 'svc latency p50',
            value: median(svcRuns.map((r) => r.latency.p50)),
            unit: 'ms',
          },
          { key: 'svc_latency_p99_ms', label: 'svc latency p99', value: p99(svcRuns), unit: 'ms' },
          { key: 'floor_latency_p99_ms', label: 'floor latency p99', value: p99(floorRuns), unit: 'ms' },
          {
            key: 'svc_response_bytes',
            label: 'svc and floor response body size',
            value: responseBytes,
            unit: 'bytes',
          },
          { key: 'svc_non2xx', label: 'svc non-2xx responses', value: svcFailures.non2xx, unit: 'responses' },
          { key: 'svc_errors', label: 'svc socket errors', value: svcFailures.errors, unit: 'requests' },
        ],
        checks: [
          atLeast('svc_floor_ratio', 'svc / floor req/s', ratio, TARGET_RATIO),
          atMost('svc_p99_ms', `svc p99 at ${CONNECTIONS} connections (ms)`, p99(svcRuns), P99_TARGET_MS),
          atMost('svc_failures', 'svc non-2xx + socket errors', svcFailures.non2xx + svcFailures.errors, 0),
        ],
        notes: [
          `autocannon: ${CONNECTIONS} connections; ${ROUNDS} alternating rounds of ${WARMUP_S} s warm-up then ${DURATION_S} s per server; medians of the rounds`,
          `svc statuses: ${JSON.stringify(svcRuns.map((r) => r.statusCodeStats))}`,
        ],
      };
    }),
};
