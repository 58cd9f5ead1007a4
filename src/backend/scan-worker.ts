// One scanning thread of `scanFolder` (scan-folder.ts): it builds the detector once, from the rule
// set it is told to load, and scans the files it is sent, a few at a time, answering with each
// one's findings or why it was skipped. Values never leave it: only masked previews and
// fingerprints. It is kept between scans, so the fingerprint key comes with each batch.
import { parentPort, workerData } from 'node:worker_threads';
import type { DetectionRule, TableReader } from '../scan/detect.ts';
import type { ScanOutcome } from './scan-files.ts';
import { enableCompileCache } from '../config/compile-cache.ts';

// A thread starts without its process's compile cache. Turned on before the scanner's modules
// load, it keeps their type-stripped form between runs: a thread had its detector ready after
// 157 to 180 ms rather than 245 to 257 (most of what is left is libphonenumber-js's metadata).
enableCompileCache();
const { detector } = await import('../scan/detect.ts');
const { scanFile } = await import('./scan-files.ts');
const { fingerprinter } = await import('./scan-key.ts');

export interface WorkerSetup {
  /** The URL of a module exporting `DETECTION_RULES`, and `TABLE_READERS` if it has any. */
  rules: string;
}

export interface WorkerJob {
  index: number;
  path: string;
  file: string;
}

export interface WorkerBatch {
  /** The key of the fingerprints' keyed hash. */
  key: Uint8Array;
  jobs: WorkerJob[];
}

export interface WorkerAnswer {
  outcomes: { index: number; outcome: ScanOutcome }[];
}

const setup = workerData as WorkerSetup;
const rules = (await import(setup.rules)) as {
  DETECTION_RULES: readonly DetectionRule[];
  TABLE_READERS?: readonly TableReader[];
};
const find = detector(rules.DETECTION_RULES, rules.TABLE_READERS);
/** The last key's fingerprinter: a scan sends the same key with each of its batches. */
let keyed: { key: Buffer; fingerprint: (type: string, value: string) => string } | undefined;

parentPort!.on('message', (batch: WorkerBatch) => {
  // Compared as bytes: no text copy of the key is kept.
  if (!keyed?.key.equals(batch.key)) {
    keyed = { key: Buffer.from(batch.key), fingerprint: fingerprinter(batch.key) };
  }
  const { fingerprint } = keyed;
  const answer: WorkerAnswer = {
    outcomes: batch.jobs.map((job) => ({ index: job.index, outcome: scanFile(job, find, fingerprint) })),
  };
  parentPort!.postMessage(answer);
});
