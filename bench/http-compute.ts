// Benchmark `http-compute`: `svc serve` as a child process, loaded by autocannon with
// POST /api/access/compute?receipt=true, against a bare node:http JSON server (also a child
// process) under the same load in the same run. Servers run apart from autocannon so the load
// generator and the server under test do not share one event loop.
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import {
  atLeast,
  atMost,
  progress,
  REPO_ROOT,
  spawnServer,
  withTempDir,
  type Benchmark,
  type ChildServer,
} from './lib.ts';

const TARGET_RATIO = 0.5;
const CONNECTIONS = 10;
const DURATION_S = 8;
const WARMUP_S = 2;
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
  description: 'svc serve (child process) POST /api/access/compute?receipt=true vs a bare node:http server',
  run: () =>
    withTempDir('http', async (dataDir) => {
      const grantToken = await prepareStore(dataDir);
      const headers = { 'content-type': 'application/json' };

      const { result: bare } = await load(
        'bare node:http server',
        () =>
          spawnServer([join(REPO_ROOT, 'bench', 'bare-http-server.ts')], {
            urlPattern: /listening on (\S+)/,
          }),
        '/compute',
        headers,
      );
      const { result: svc, responseBytes } = await load(
        'svc serve',
        () =>
          spawnServer([join(REPO_ROOT, 'bin', 'svc.js'), 'serve', '--port', '0'], {
            env: { ...process.env, SVC_HOME: dataDir },
            urlPattern: /^svc is serving on (\S+)/,
          }),
        process.env.BENCH_HTTP_PATH ?? '/api/access/compute?receipt=true',
        { ...headers, authorization: `Bearer ${grantToken}` },
      );

      const ratio = svc.requests.average / bare.requests.average;
      const svcFailures = failures(svc);
      const bareFailures = failures(bare);
      return {
        metrics: [
          {
            key: 'svc_requests_per_sec',
            label: 'svc compute+receipt',
            value: svc.requests.average,
            unit: 'req/s',
          },
          {
            key: 'bare_requests_per_sec',
            label: 'bare node:http JSON',
            value: bare.requests.average,
            unit: 'req/s',
          },
          { key: 'svc_latency_p50_ms', label: 'svc latency p50', value: svc.latency.p50, unit: 'ms' },
          { key: 'svc_latency_p99_ms', label: 'svc latency p99', value: svc.latency.p99, unit: 'ms' },
          { key: 'bare_latency_p99_ms', label: 'bare latency p99', value: bare.latency.p99, unit: 'ms' },
          { key: 'svc_response_bytes', label: 'svc response body size', value: responseBytes, unit: 'bytes' },
          { key: 'svc_non2xx', label: 'svc non-2xx responses', value: svcFailures.non2xx, unit: 'responses' },
          { key: 'svc_errors', label: 'svc socket errors', value: svcFailures.errors, unit: 'requests' },
          {
            key: 'bare_non2xx',
            label: 'bare non-2xx responses',
            value: bareFailures.non2xx,
            unit: 'responses',
          },
        ],
        checks: [
          atLeast('svc_bare_ratio', 'svc / bare req/s', ratio, TARGET_RATIO),
          atMost('svc_failures', 'svc non-2xx + socket errors', svcFailures.non2xx + svcFailures.errors, 0),
        ],
        notes: [
          `autocannon: ${CONNECTIONS} connections, ${WARMUP_S} s warm-up then ${DURATION_S} s, ` +
            `POST ${Buffer.byteLength(BODY)}-byte JSON body; req/s is autocannon's per-second average`,
          `svc statuses: ${JSON.stringify(svc.statusCodeStats)}; bare statuses: ${JSON.stringify(bare.statusCodeStats)}`,
        ],
      };
    }),
};
