// Benchmark `read-audit`: in-process agent reads of the demo table, called the way an in-process
// adapter calls them (`service.invoke` with the agent's bearer), each of which appends a signed
// row to the read-audit chain, committed before the answer (crash-durable). Readers come
// CONCURRENCY at a time, as a server's requests do, so their audit rows share commits; one
// reader at a time is reported beside it. The target is on the default store settings
// (synchronous = NORMAL in WAL mode, which survives a process crash, not a power cut); 50-row
// reads and synchronous = FULL (every commit fsynced, survives power loss) are reported for
// information.
import type { StoreOptions } from '../src/backend/store/db.ts';
import { ops } from '../src/backend/operations/index.ts';
import {
  atLeast,
  measureAsync,
  measureConcurrent,
  progress,
  withTempDir,
  type Benchmark,
  type Rate,
} from './lib.ts';
import { createFixture } from './fixture.ts';

const TARGET_READS_PER_SEC = 5000;
const DURATION_MS = 3000;
const CONCURRENCY = 16;

interface Variant {
  key: string;
  label: string;
  limit: number;
  store: StoreOptions;
}

const VARIANTS: Variant[] = [
  {
    key: 'limit10_normal',
    label: 'read 10 rows, synchronous=normal',
    limit: 10,
    store: { synchronous: 'normal' },
  },
  {
    key: 'limit50_normal',
    label: 'read 50 rows, synchronous=normal',
    limit: 50,
    store: { synchronous: 'normal' },
  },
  { key: 'limit10_full', label: 'read 10 rows, synchronous=full', limit: 10, store: { synchronous: 'full' } },
];

/** Each variant gets a fresh data dir, so none starts with a longer chain or a fuller WAL. */
function runVariant(variant: Variant): Promise<{ rate: Rate; sequential: Rate; auditRows: number }> {
  return withTempDir('read', async (dir) => {
    const { service, bearer, handle } = await createFixture(dir, {
      columns: ['id', 'region', 'email'],
      store: variant.store,
    });
    try {
      // The handle as the HTTP route passes it from its path, so it is checked against the grant.
      const input = {
        handle,
        table: 'agent_demo_records',
        columns: ['id', 'region', 'email'],
        limit: variant.limit,
      };
      const read = () => service.invoke(ops.readRows, bearer, input);
      const sample = await read();
      if (sample.count !== variant.limit) {
        throw new Error(`expected ${variant.limit} rows, got ${sample.count}`);
      }
      const rate = await measureConcurrent(read, CONCURRENCY, { durationMs: DURATION_MS });
      const sequential = await measureAsync(read, { durationMs: DURATION_MS / 2 });
      const auditRows = await service.ctx.chains.length('audit');
      progress(
        `${variant.label}: ${Math.round(rate.perSecond)} reads/s with ${CONCURRENCY} readers, ${Math.round(sequential.perSecond)} one at a time`,
      );
      return { rate, sequential, auditRows };
    } finally {
      service.close();
    }
  });
}

export const readAudit: Benchmark = {
  name: 'read-audit',
  description:
    "service.invoke(ops.readRows, agent's bearer, {handle, table, columns, limit}) with its signed audit row, in-process",
  async run() {
    const results = [];
    for (const variant of VARIANTS) results.push({ variant, ...(await runVariant(variant)) });
    const main = results[0]!;
    return {
      metrics: results.flatMap(({ variant, rate, sequential }) => [
        {
          key: `${variant.key}_reads_per_sec`,
          label: `${variant.label}, ${CONCURRENCY} readers`,
          value: rate.perSecond,
          unit: 'reads/s',
        },
        {
          key: `${variant.key}_sequential_reads_per_sec`,
          label: `${variant.label}, one reader`,
          value: sequential.perSecond,
          unit: 'reads/s',
        },
      ]),
      checks: [
        atLeast(
          'limit10_normal_reads_per_sec',
          'crash-durable reads/s, 10 rows, normal',
          main.rate.perSecond,
          TARGET_READS_PER_SEC,
        ),
      ],
      notes: [
        `${DURATION_MS} ms per variant after a 500 ms warm-up; every read appended one audit row ` +
          `(${results.map((r) => r.auditRows).join(' / ')} rows per variant)`,
        'synchronous=normal (default) survives a process crash; synchronous=full also survives power loss',
      ],
    };
  },
};
