// One scanning thread of `scanFolder` (scan-folder.ts): it builds the detector once, from the rule
// set it is told to load, and scans the files it is sent, a few at a time, answering with each
// one's findings or why it was skipped. Values never leave it: only masked previews and
// fingerprints. It is kept between scans, so the fingerprint key comes with each batch.
// A thread starts from scan-folder.ts's bootstrap, which turns the compile cache on before this
// module loads: this module and the scanner's come type-stripped from the cache.
import { parentPort, workerData } from 'node:worker_threads';
import { detector, type DetectionRule, type TableReader } from '../scan/detect.ts';
import { scanFile, type ScanOutcome } from './scan-files.ts';
import { fingerprinter } from './scan-key.ts';

export interface WorkerSetup {
  /** The URL of a module exporting `DETECTION_RULES`, and `TABLE_READERS` if it has any. */
  rules: string;
}

export interface WorkerJob {
  index: number;
  path: string;
  file: string;
  /** As the walk saw it (FileToScan). */
  identity?: string | undefined;
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
