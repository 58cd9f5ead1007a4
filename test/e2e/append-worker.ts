// A worker process for the concurrency suite: opens the shared data dir, waits for `go` on stdin,
// then appends N audit rows (reads) and N service-chain receipts (computes with receipt).
// Nothing is caught: any error ends the process non-zero with the error on stderr.
// Env: SVC_HOME (data dir), SVC_WORKER_TOKEN (agent grant token), SVC_WORKER_N (operations of each kind).
// Stdout: `ready`, then one JSON line {audits: [{id, chain_index}], receipts: [{id, chain_index}]}.
import { createInterface } from 'node:readline';
import { Service } from '../../src/backend/service.ts';
import { authenticate } from '../../src/backend/credentials.ts';
import { ops } from '../../src/backend/operations/index.ts';

const dataDir = process.env.SVC_HOME;
const token = process.env.SVC_WORKER_TOKEN;
const n = Number(process.env.SVC_WORKER_N);
if (!dataDir || !token || !Number.isInteger(n) || n < 1) {
  throw new Error('append-worker needs SVC_HOME, SVC_WORKER_TOKEN and SVC_WORKER_N');
}

const service = new Service({ dataDir });
const bearer = `Bearer ${token}`;
const first = await authenticate(service.ctx, bearer);
if (first.kind !== 'agent') throw new Error('SVC_WORKER_TOKEN is not an agent token');
const handle = first.handle;

process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (line.trim() === 'go') break;
}
lines.close();

const audits: { id: string; chain_index: number }[] = [];
const receipts: { id: string; chain_index: number }[] = [];
for (let i = 0; i < n; i++) {
  const read = await service.invoke(ops.readRows, bearer, {
    handle,
    table: 'agent_demo_records',
    columns: ['id', 'email'],
    limit: 3,
  });
  if (read.count !== 3) throw new Error(`read ${i} returned ${read.count} rows`);
  audits.push(read.audit);

  const decision = await service.invoke(ops.computeDecision, bearer, {
    action: 'read',
    columns: ['id', 'email'],
    receipt: 'true',
  });
  if (decision.decision !== 'allow' || !decision.receipt)
    throw new Error(`compute ${i}: ${JSON.stringify(decision)}`);
  receipts.push({ id: decision.receipt.receipt_id, chain_index: decision.receipt.chain_index });
}
service.close();
process.stdout.write(`${JSON.stringify({ audits, receipts })}\n`);
