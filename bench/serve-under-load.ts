// Benchmark `serve-under-load`: `svc serve` answering while another process loads 2 x 50,000 rows
// into the same store with `svc table load` (the CLI holds the write lock for its transactions).
// Four callers ask for the key document (GET /.well-known/svc-keys.json) and four for a compute
// with receipt (a write) the whole time; the p99 of each, and every status, is reported, beside
// the same callers with no load running (context).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { Service } from '../src/backend/service.ts';
import { ops } from '../src/backend/operations/index.ts';
import { atMost, progress, REPO_ROOT, spawnServer, withTempDir, type Benchmark } from './lib.ts';

const ROWS_PER_FILE = Number(process.env.BENCH_LOAD_ROWS ?? 50_000);
const FILES = 2;
const CALLERS = 4;
const P99_TARGET_MS = 50;
const BASELINE_MS = 3000;
/** Each caller's pace: 4 callers x 2 requests at 100/s each, well under what svc serves. */
const INTERVAL_MS = 10;

interface Sample {
  ms: number;
  status: number;
}

function p99(samples: Sample[]): number {
  const sorted = samples.map((s) => s.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
}

/**
 * CALLERS callers, each sending `send` every INTERVAL_MS until `stop` resolves. A call's time runs
 * from when it was due, not when it was sent: a server that stalls is charged for every call it
 * held back, not only the one it was answering (no coordinated omission).
 */
async function callUntil(stop: Promise<unknown>, send: () => Promise<number>): Promise<Sample[]> {
  let done = false;
  void stop.then(() => (done = true));
  const samples: Sample[] = [];
  await Promise.all(
    Array.from({ length: CALLERS }, async (_, caller) => {
      let due = performance.now() + (caller * INTERVAL_MS) / CALLERS;
      while (!done) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        const status = await send().catch(() => 0);
        const end = performance.now();
        // Every call that fell due while this one was held counts, each from its own due time.
        for (; due <= end && samples.length < 1_000_000; due += INTERVAL_MS)
          samples.push({ ms: end - due, status });
      }
    }),
  );
  return samples;
}

export const serveUnderLoad: Benchmark = {
  name: 'serve-under-load',
  description: `svc serve p99 (key document GET, compute with receipt) while another process loads ${FILES} x ${ROWS_PER_FILE} rows`,
  run: () =>
    withTempDir('underload', async (dir) => {
      const service = new Service({ dataDir: dir });
      let apiKey: string;
      let grantToken: string;
      try {
        apiKey = (await service.invoke(ops.createOrg, undefined, { name: 'Bench Org' })).api_key;
        grantToken = (
          await service.invoke(ops.createGrant, `Bearer ${apiKey}`, {
            agent: 'bench agent',
            columns: ['id', 'email'],
          })
        ).grant_token;
        await service.invoke(ops.registerTable, `Bearer ${apiKey}`, {
          name: 'bulk',
          columns: [
            { name: 'id', classification: 'public', storage: 'plaintext' },
            { name: 'region', classification: 'public', storage: 'plaintext' },
            { name: 'email', classification: 'pii', storage: 'encrypted' },
            { name: 'notes', classification: 'confidential', storage: 'encrypted' },
          ],
        });
      } finally {
        service.close();
      }
      const files = Array.from({ length: FILES }, (_, f) => {
        const file = join(dir, `rows-${f}.json`);
        const rows = Array.from({ length: ROWS_PER_FILE }, (_, i) => ({
          id: f * ROWS_PER_FILE + i,
          region: ['eu', 'us', 'apac'][i % 3],
          email: `person${i}@example.test`,
          notes: `note ${i} for file ${f}`,
        }));
        writeFileSync(file, JSON.stringify(rows));
        return file;
      });

      const server = await spawnServer([join(REPO_ROOT, 'bin', 'svc.js'), 'serve', '--port', '0'], {
        env: { ...process.env, SVC_HOME: dir },
        urlPattern: /^svc is serving on (\S+)/,
      });
      try {
        const keyDocument = async () => {
          const r = await request(`${server.url}/.well-known/svc-keys.json`);
          await r.body.dump();
          return r.statusCode;
        };
        const compute = async () => {
          const r = await request(`${server.url}/api/access/compute?receipt=true`, {
            method: 'POST',
            headers: { authorization: `Bearer ${grantToken}`, 'content-type': 'application/json' },
            body: JSON.stringify({ columns: ['id'] }),
          });
          await r.body.dump();
          return r.statusCode;
        };
        const measureBoth = (stop: Promise<unknown>) =>
          Promise.all([callUntil(stop, keyDocument), callUntil(stop, compute)]);

        progress(`baseline: ${BASELINE_MS} ms of calls with no load`);
        const [baseKeys, baseCompute] = await measureBoth(new Promise((r) => setTimeout(r, BASELINE_MS)));

        progress(`loading ${FILES} x ${ROWS_PER_FILE} rows with svc table load while calling`);
        const loadStart = performance.now();
        const loading = (async () => {
          for (const file of files) {
            await new Promise<void>((resolve, reject) => {
              const child = spawn(
                process.execPath,
                [join(REPO_ROOT, 'bin', 'svc.js'), 'table', 'load', 'bulk', '--file', file],
                {
                  env: { ...process.env, SVC_HOME: dir, SVC_API_KEY: apiKey },
                  stdio: ['ignore', 'ignore', 'pipe'],
                },
              );
              let stderr = '';
              child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
              child.once('exit', (code) =>
                code === 0 ? resolve() : reject(new Error(`svc table load exited ${code}: ${stderr}`)),
              );
            });
          }
        })();
        const [loadKeys, loadCompute] = await measureBoth(loading);
        await loading;
        const loadSeconds = (performance.now() - loadStart) / 1000;

        const failures = [...loadKeys, ...loadCompute].filter((s) => s.status !== 200).length;
        return {
          metrics: [
            {
              key: 'keys_p99_ms',
              label: 'key document GET p99, during the load',
              value: p99(loadKeys),
              unit: 'ms',
            },
            {
              key: 'compute_p99_ms',
              label: 'compute with receipt p99, during the load',
              value: p99(loadCompute),
              unit: 'ms',
            },
            {
              key: 'keys_p99_idle_ms',
              label: 'key document GET p99, no load',
              value: p99(baseKeys),
              unit: 'ms',
            },
            {
              key: 'compute_p99_idle_ms',
              label: 'compute with receipt p99, no load',
              value: p99(baseCompute),
              unit: 'ms',
            },
            {
              key: 'calls_during_load',
              label: 'calls answered during the load',
              value: loadKeys.length + loadCompute.length,
              unit: 'calls',
            },
            {
              key: 'load_seconds',
              label: `loading ${FILES} x ${ROWS_PER_FILE} rows`,
              value: loadSeconds,
              unit: 's',
            },
          ],
          checks: [
            atMost('keys_p99', 'key document p99 during the load (ms)', p99(loadKeys), P99_TARGET_MS),
            atMost('compute_p99', 'compute p99 during the load (ms)', p99(loadCompute), P99_TARGET_MS),
            atMost('non_200', 'answers other than 200 during the load', failures, 0),
          ],
          notes: [
            `${CALLERS} callers for each of the two requests, one call every ${INTERVAL_MS} ms each, for the whole load; times run from when a call was due`,
          ],
        };
      } finally {
        await server.stop();
      }
    }),
};
