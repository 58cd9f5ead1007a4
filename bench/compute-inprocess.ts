// Benchmark `compute-inprocess`: an in-process compute with a signed receipt, called the way an
// in-process adapter calls it (`service.invoke` with the agent's bearer), against a bare Ed25519
// sign of a payload of the same size, measured in the same run. The signature is the
// one unavoidable cost of a receipt, so the ratio says how much everything else (decision,
// usage counter, chain head lookup, canonical JSON, hash, insert, commit, and the adapter path:
// bearer check, input parsing, promise) adds on top of it.
import { generateKeyPairSync, sign } from 'node:crypto';
import { ops } from '../src/backend/operations/index.ts';
import { canonicalText } from '../src/proofs/format.ts';
import {
  atLeast,
  measure,
  measureAsync,
  measureConcurrent,
  median,
  progress,
  withTempDir,
  type Benchmark,
  type BenchReport,
} from './lib.ts';
import { createFixture } from './fixture.ts';

const TARGET_RATIO = 0.5;
/** Alternating short rounds rather than one long run each, so drift on a shared machine hits both. */
const ROUNDS = 3;
const ROUND_MS = 1500;
/** Callers at once, as a server's concurrent requests are: their writes share one commit. */
const CONCURRENCY = 16;

export const computeInprocess: Benchmark = {
  name: 'compute-inprocess',
  description:
    "service.invoke(ops.computeDecision, agent's bearer, {columns, receipt}) vs node:crypto Ed25519 sign, in-process",
  run: () =>
    withTempDir('compute', async (dir): Promise<BenchReport> => {
      const { service, bearer } = await createFixture(dir, { columns: ['id', 'region', 'email'] });
      try {
        const input = { columns: ['id', 'email'] };
        const compute = () => service.invoke(ops.computeDecision, bearer, { ...input, receipt: 'true' });

        // Sign exactly as many bytes as a receipt signs: the canonical payload of a real one.
        const sample = await compute();
        if (!sample.receipt || sample.decision !== 'allow') {
          throw new Error('compute did not allow with a receipt');
        }
        const message = new TextEncoder().encode(canonicalText(sample.receipt.payload));
        const { privateKey } = generateKeyPairSync('ed25519');
        const signOnce = () => sign(null, message, privateKey);

        const computeRates: number[] = [];
        const sequentialRates: number[] = [];
        const signRates: number[] = [];
        for (let round = 1; round <= ROUNDS; round++) {
          const signRate = measure(signOnce, { durationMs: ROUND_MS });
          const computeRate = await measureConcurrent(compute, CONCURRENCY, { durationMs: ROUND_MS });
          const sequential = await measureAsync(compute, { durationMs: ROUND_MS });
          signRates.push(signRate.perSecond);
          computeRates.push(computeRate.perSecond);
          sequentialRates.push(sequential.perSecond);
          progress(
            `round ${round}/${ROUNDS}: compute ${Math.round(computeRate.perSecond)}/s with ${CONCURRENCY} callers, ` +
              `${Math.round(sequential.perSecond)}/s one at a time; sign ${Math.round(signRate.perSecond)}/s`,
          );
        }
        // Context, not part of the ratio: the same decision without a receipt (no sign, no chain row).
        const plain = await measureAsync(() => service.invoke(ops.computeDecision, bearer, input), {
          durationMs: ROUND_MS,
        });
        const computePerSec = median(computeRates);
        const signPerSec = median(signRates);
        const ratio = computePerSec / signPerSec;
        return {
          metrics: [
            {
              key: 'compute_ops_per_sec',
              label: `compute with receipt, ${CONCURRENCY} callers`,
              value: computePerSec,
              unit: 'ops/s',
            },
            {
              key: 'compute_sequential_ops_per_sec',
              label: 'compute with receipt, one caller at a time',
              value: median(sequentialRates),
              unit: 'ops/s',
            },
            {
              key: 'sign_ops_per_sec',
              label: 'Ed25519 sign (same payload size)',
              value: signPerSec,
              unit: 'ops/s',
            },
            {
              key: 'compute_no_receipt_ops_per_sec',
              label: 'compute without receipt',
              value: plain.perSecond,
              unit: 'ops/s',
            },
            { key: 'payload_bytes', label: 'signed payload size', value: message.length, unit: 'bytes' },
            {
              key: 'service_chain_length',
              label: 'receipts appended',
              value: await service.ctx.chains.length('service'),
              unit: 'rows',
            },
          ],
          checks: [atLeast('compute_sign_ratio', 'compute / sign', ratio, TARGET_RATIO)],
          notes: [
            `median of ${ROUNDS} alternating rounds of ${ROUND_MS} ms each (after a 500 ms warm-up per round)`,
            `the ratio is taken with ${CONCURRENCY} concurrent callers, as a server meets them: their receipts share one commit; one caller at a time pays a commit per receipt`,
          ],
        };
      } finally {
        service.close();
      }
    }),
};
