// Scanning a folder on both cores: the files `filesToScan` gives are handed, largest first, to a
// few worker threads (scan-worker.ts), each scanning one file at a time; findings come back in the
// walk's order, whatever order the threads finish in. The fingerprint key is the caller's (the vault
// derives it), so the same value has the same fingerprint across scans of one organization.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Finding } from '../scan/detect.ts';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  MAX_SCAN_FILE_BYTES,
  filesToScan,
  type FileToScan,
  type ScanOutcome,
  type Skipped,
} from './scan-files.ts';
import type { WorkerJob, WorkerSetup } from './scan-worker.ts';

export interface FolderFinding extends Finding {
  /** Relative to the scanned folder, with `/` between parts. */
  file: string;
}

export interface FolderScan {
  findings: FolderFinding[];
  files_scanned: number;
  bytes_scanned: number;
  skipped: Skipped[];
}

export interface FolderScanOptions {
  rules: WorkerSetup['rules'];
  key: Uint8Array;
  /** Threads to scan on (default: one per core, at most 4). */
  threads?: number;
  /**
   * Whether a file may be read (the read gate's decision, for an agent's scan): a file it refuses
   * is not read, and is reported as skipped, `protected`.
   */
  admit?: (path: string) => Promise<boolean>;
  /** Scan this one file of the folder (a name in it) and nothing else. */
  only?: string;
  /** Called after each file, with the files done and the bytes read so far. */
  onProgress?: (done: { files: number; bytes: number }) => void;
}

/** One named file of `root`, as the walk would give it (too large: skipped). */
async function* oneFile(root: string, name: string, skipped: Skipped[]): AsyncGenerator<FileToScan> {
  const path = join(root, name);
  const { size } = await stat(path);
  if (size > MAX_SCAN_FILE_BYTES) skipped.push({ file: name, reason: 'too_large' });
  else yield { path, file: name, bytes: size };
}

const WORKER = new URL('./scan-worker.ts', import.meta.url);

export async function scanFolder(root: string, options: FolderScanOptions): Promise<FolderScan> {
  const count = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
  const setup: WorkerSetup = { rules: options.rules, key: options.key };
  const workers = Array.from({ length: count }, () => new Worker(WORKER, { workerData: setup }));
  // A thread that fails (its rules cannot load, a file crashes it) fails the scan, not the process.
  let failure: Error | undefined;
  const current = new Map<Worker, (error: Error) => void>();
  for (const worker of workers) {
    worker.on('error', (error) => {
      failure ??= error;
      current.get(worker)?.(error);
    });
  }
  const skipped: Skipped[] = [];
  const outcomes: { file: string; outcome: ScanOutcome }[] = [];
  let done = 0;
  let bytes = 0;
  try {
    const idle = [...workers];
    const waiting: ((worker: Worker) => void)[] = [];
    const release = (worker: Worker) => {
      const next = waiting.shift();
      if (next) next(worker);
      else idle.push(worker);
    };
    const acquire = () =>
      idle.length > 0
        ? Promise.resolve(idle.pop()!)
        : new Promise<Worker>((resolve) => waiting.push(resolve));
    const pending: Promise<void>[] = [];
    let index = 0;
    const source =
      options.only === undefined
        ? filesToScan(root, (s) => skipped.push(s))
        : oneFile(root, options.only, skipped);
    // The whole walk first (the threads are starting meanwhile), then the largest files first: a
    // large file met last would leave one thread scanning it while the others wait.
    const targets: { target: FileToScan; index: number }[] = [];
    for await (const target of source) {
      if (options.admit && !(await options.admit(target.path))) {
        skipped.push({ file: target.file, reason: 'protected' });
        continue;
      }
      targets.push({ target, index: index++ });
    }
    targets.sort((a, b) => b.target.bytes - a.target.bytes || a.index - b.index);
    for (const { target, index } of targets) {
      const worker = await acquire();
      if (failure) break;
      const job: WorkerJob = { index, path: target.path, file: target.file };
      pending.push(
        new Promise<void>((resolve, reject) => {
          current.set(worker, reject);
          worker.once('message', (answer: { index: number; outcome: ScanOutcome }) => {
            current.delete(worker);
            outcomes[answer.index] = { file: target.file, outcome: answer.outcome };
            done++;
            if ('bytes' in answer.outcome) bytes += answer.outcome.bytes;
            options.onProgress?.({ files: done, bytes });
            release(worker);
            resolve();
          });
          worker.postMessage(job);
        }),
      );
    }
    await Promise.all(pending);
    if (failure) throw failure;
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  const findings: FolderFinding[] = [];
  let files = 0;
  for (const { file, outcome } of outcomes) {
    if ('skipped' in outcome) {
      skipped.push({ file, reason: outcome.skipped });
      continue;
    }
    files++;
    for (const finding of outcome.findings) findings.push({ file, ...finding });
  }
  return { findings, files_scanned: files, bytes_scanned: bytes, skipped };
}
