// One scanning thread of `scanFolder` (scan-folder.ts): it builds the detector once, from the rule
// set it is told to load, and scans the files it is sent, one at a time, answering each with its
// findings or why it was skipped. Values never leave it: only masked previews and fingerprints.
import { parentPort, workerData } from 'node:worker_threads';
import { detector, type DetectionRule, type TableReader } from '../scan/detect.ts';
import { scanFile } from './scan-files.ts';
import { fingerprinter } from './scan-key.ts';

export interface WorkerSetup {
  /** The URL of a module exporting `DETECTION_RULES`, and `TABLE_READERS` if it has any. */
  rules: string;
  /** The key of the fingerprints' keyed hash. */
  key: Uint8Array;
}

export interface WorkerJob {
  index: number;
  path: string;
  file: string;
}

const setup = workerData as WorkerSetup;
const rules = (await import(setup.rules)) as {
  DETECTION_RULES: readonly DetectionRule[];
  TABLE_READERS?: readonly TableReader[];
};
const find = detector(rules.DETECTION_RULES, rules.TABLE_READERS);
const fingerprint = fingerprinter(setup.key);

parentPort!.on('message', (job: WorkerJob) => {
  parentPort!.postMessage({ index: job.index, outcome: scanFile(job, find, fingerprint) });
});
