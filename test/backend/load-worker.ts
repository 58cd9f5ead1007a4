// A loader in a process of its own, for the table-load suite: loads generated rows into a
// registered table of the shared data dir, saying `chunk <rows written>` after each chunk commits.
// In step mode it then waits for a line on stdin before going on, so the test decides what happens
// between two chunks: kill it there, or let it go on. Nothing is caught: any error ends the process
// non-zero with the error on stderr.
// Env: SVC_HOME (data dir), SVC_LOAD_ORG (organization id), SVC_LOAD_TABLE (with columns id,
// region, email, notes), SVC_LOAD_ROWS (how many), SVC_LOAD_CHUNK (rows per chunk, optional),
// SVC_LOAD_STEP=1 (step mode, optional).
// Stdout: `chunk <n>` after each chunk, then `published <{table, loaded, total_rows}>`.
import { createInterface } from 'node:readline';
import { Service } from '../../src/backend/service.ts';
import { loadRows } from '../../src/backend/tables.ts';

const dataDir = process.env.SVC_HOME;
const orgId = process.env.SVC_LOAD_ORG;
const table = process.env.SVC_LOAD_TABLE;
const count = Number(process.env.SVC_LOAD_ROWS);
const chunkRows = process.env.SVC_LOAD_CHUNK ? Number(process.env.SVC_LOAD_CHUNK) : undefined;
const step = process.env.SVC_LOAD_STEP === '1';
if (!dataDir || !orgId || !table || !Number.isInteger(count) || count < 1) {
  throw new Error('load-worker needs SVC_HOME, SVC_LOAD_ORG, SVC_LOAD_TABLE and SVC_LOAD_ROWS');
}

const lines = step ? createInterface({ input: process.stdin })[Symbol.asyncIterator]() : undefined;
const service = new Service({ dataDir });
const rows = Array.from({ length: count }, (_, i) => ({
  id: i + 1,
  region: ['eu', 'us', 'apac'][i % 3]!,
  email: `worker${i + 1}@example.test`,
  notes: `worker row ${i + 1}`,
}));
const result = await loadRows(service.ctx, orgId, table, rows, {
  chunkRows,
  onChunk: async (written) => {
    process.stdout.write(`chunk ${written}\n`);
    if (lines && (await lines.next()).done) throw new Error('stdin closed between two chunks');
  },
});
process.stdout.write(`published ${JSON.stringify(result)}\n`);
service.close();
process.exit(0);
