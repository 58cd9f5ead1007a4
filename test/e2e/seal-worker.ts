// A worker process for the sealed-file crash suites: seals one file in place (`protect`), opens
// one back in place (`open`) or wraps one into the archive (`wrap`, or `wrap-remove` to remove the
// original afterwards), and at its Nth progress event says so on stdout. With
// SVC_WORKER_MODE=stop it then holds still until it is killed, so the kill lands exactly between
// two steps; with `race` it carries on, so the kill lands wherever the work has got to.
// Env: SVC_HOME (data dir), SVC_WORKER_OP (protect, open, wrap or wrap-remove), SVC_WORKER_FILE, SVC_WORKER_AT (N),
// SVC_WORKER_MODE. Stdout: `at N STEP` lines, then `finished` if the work ended before event N.
import { writeSync } from 'node:fs';
import { Service } from '../../src/backend/service.ts';
import { openSealed, protectPaths } from '../../src/backend/seal-files.ts';
import { wrapPaths } from '../../src/backend/archive.ts';

const { SVC_HOME: dataDir, SVC_WORKER_OP: op, SVC_WORKER_FILE: file, SVC_WORKER_MODE: mode } = process.env;
const at = Number(process.env.SVC_WORKER_AT);
if (
  !dataDir ||
  !file ||
  !['protect', 'open', 'wrap', 'wrap-remove'].includes(op ?? '') ||
  !Number.isInteger(at) ||
  at < 1
) {
  throw new Error('seal-worker needs SVC_HOME, SVC_WORKER_OP, SVC_WORKER_FILE and SVC_WORKER_AT');
}

const service = new Service({ dataDir });
let events = 0;
const progress = (step: string) => {
  events++;
  if (mode === 'race') {
    if (events >= at) writeSync(1, `at ${events} ${step}\n`);
    return;
  }
  if (events !== at) return;
  // Written synchronously, so the line is out before the process stops.
  writeSync(1, `at ${events} ${step}\n`);
  // Blocks this thread for good, with no timer: the test kills the process here.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
};

if (op === 'protect') {
  const result = await protectPaths(service.ctx, [file], {
    by: 'user:crash',
    onProgress: (p) => progress(p.step),
  });
  if (result.sealed.length !== 1) throw new Error(`not sealed: ${JSON.stringify(result)}`);
} else if (op === 'wrap' || op === 'wrap-remove') {
  const result = await wrapPaths(service.ctx, [file], {
    by: 'user:crash',
    remove: op === 'wrap-remove',
    onProgress: (p) => progress(p.step),
  });
  if (result.wrapped.length !== 1) throw new Error(`not wrapped: ${JSON.stringify(result)}`);
} else {
  await openSealed(service.ctx, file, {
    out: { kind: 'in_place' },
    by: 'user:crash',
    admit: async () => ({ allowed: true, outcome: 'allowed', rule_id: null, audit_id: null }),
    onProgress: (p) => progress(p.step),
  });
}
service.close();
writeSync(1, 'finished\n');
