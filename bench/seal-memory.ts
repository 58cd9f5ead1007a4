// A child of the `seal` benchmark: seals one file in place in a fresh process and prints its peak
// resident memory as one JSON line, so one sealing's peak is not hidden by another's.
import { Service } from '../src/backend/service.ts';
import { protectPaths } from '../src/backend/seal-files.ts';

const file = process.argv[2];
const dataDir = process.env.SVC_HOME;
if (!file || !dataDir) throw new Error('usage: SVC_HOME=<data dir> node bench/seal-memory.ts <file>');
const service = new Service({ dataDir });
try {
  const result = await protectPaths(service.ctx, [file], { by: 'bench' });
  if (result.sealed.length !== 1) throw new Error(`not sealed: ${JSON.stringify(result)}`);
} finally {
  service.close();
}
process.stdout.write(`${JSON.stringify({ max_rss_kib: process.resourceUsage().maxRSS })}\n`);
