// Scanning a folder on both cores: worker threads (scan-worker.ts) scan the files `filesToScan`
// gives while the walk goes on, the largest known file first, small files several to a message;
// findings come back in the walk's order, whatever order the threads finish in. The threads are
// kept between scans of one process (an MCP server scans many times), so only the first scan pays
// for loading the rules. The fingerprint key is the caller's (the vault derives it), so the same
// value has the same fingerprint across scans of one organization.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Finding } from '../scan/detect.ts';
import { lstat, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import {
  MAX_SCAN_FILE_BYTES,
  filesToScan,
  identityOf,
  type Admit,
  type ConfirmHeld,
  type FileToScan,
  type ScanOutcome,
  type Skipped,
} from './scan-files.ts';
import type { WorkerAnswer, WorkerBatch, WorkerSetup } from './scan-worker.ts';

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
   * is not read, and is reported as skipped, `protected`. A file it holds (`'ask'`) waits for
   * `confirm` at the walk's end.
   */
  admit?: Admit;
  /**
   * Asked once, when the walk has ended, about every file `admit` held; the threads go on with the
   * rest meanwhile. Yes scans them; without it, or without a yes, they are `protected`.
   */
  confirm?: ConfirmHeld;
  /** Scan this one file of the folder (a name in it) and nothing else. */
  only?: string;
  /**
   * The folder as it was named, when that is a link (or holds one on the way) to `root`: `admit` is
   * asked about each file under that path, whose forms hold the real one too.
   */
  namedRoot?: string;
  /** Called after each file, with the files done and the bytes read so far, of those walked so far. */
  onProgress?: (progress: ScanProgress) => void;
}

/** How far a folder's scan is: done of what the walk found so far, all of it once the walk ended. */
export interface ScanProgress {
  files: number;
  bytes: number;
  /** The files and bytes the walk has found to scan; `final` once it has ended, and they are all. */
  of: { files: number; bytes: number; final: boolean };
}

/**
 * One named file of `root`, as the walk would give it (too large: skipped). A name that is a link
 * is followed here, once: the scan opens the file it leads to, while it is still that file, and
 * the gate judges it under the name as given (`named`), whose forms hold both.
 */
async function* oneFile(
  root: string,
  name: string,
  skipped: Skipped[],
  namedRoot = root,
): AsyncGenerator<FileToScan> {
  const path = await realpath(join(root, name));
  // The file the gate will judge, by identity: a file put in its place meanwhile (while the person
  // is asked about it, say) is `changed`, not read.
  const found = await lstat(path, { bigint: true });
  if (found.size > MAX_SCAN_FILE_BYTES) skipped.push({ file: name, reason: 'too_large' });
  else
    yield {
      path,
      file: name,
      bytes: Number(found.size),
      identity: identityOf(found),
      named: join(namedRoot, name),
    };
}

const WORKER = new URL('./scan-worker.ts', import.meta.url);
/**
 * The scanner's rule set (src/scan/rules.ts), named by its URL: its threads load it, and the
 * process that scans does not (it runs none of the rules; loading them took `svc scan` about 30 ms).
 */
export const SCANNER_RULES = new URL('../scan/rules.ts', import.meta.url).href;
/**
 * What a new thread runs: a line of JavaScript that turns the runtime's compile cache on (a thread
 * starts without its process's), then loads scan-worker.ts. Started from the TypeScript file
 * itself, a thread loaded the type stripper before anything ran, even with every module in the
 * cache: its first answer came after 115 to 143 ms rather than 90 to 98.
 */
const BOOTSTRAP = `process.getBuiltinModule('node:module').enableCompileCache?.(); import(${JSON.stringify(WORKER.href)});`;

/**
 * Files smaller than this go several to a message, up to this many bytes together: a folder of
 * thousands of small files paid a message's round trip for each, longer than scanning it.
 */
const BATCH_BYTES = 256 * 1024;
const BATCH_FILES = 64;
/** Batches a thread holds at once: the one it scans and the next. */
const BATCHES_AHEAD = 2;

/** Bytes to scan per thread before another is started: about what one thread reads while another loads. */
const NEW_THREAD_BYTES = 16 * 1024 * 1024;

/**
 * Idle threads, per rule set, kept for the next scan of this process. They do not keep the
 * process alive (unref'd while idle), and a thread that failed is never put back.
 */
const idleThreads = new Map<string, Worker[]>();

/** The threads kept idle for a rule set (for tests: which threads a scan left behind). */
export function keptScanThreads(rules: string): readonly Worker[] {
  return [...(idleThreads.get(rules) ?? [])];
}

function newThread(rules: string): Worker {
  return new Worker(BOOTSTRAP, { eval: true, workerData: { rules } });
}

function takeThread(rules: string): Worker {
  const worker = idleThreads.get(rules)?.pop() ?? newThread(rules);
  worker.ref();
  return worker;
}

function returnThread(rules: string, worker: Worker): void {
  for (const event of ['message', 'error', 'exit']) worker.removeAllListeners(event);
  worker.unref();
  const idle = idleThreads.get(rules) ?? [];
  idleThreads.set(rules, idle);
  idle.push(worker);
  // A kept thread that fails while idle is dropped, not an unhandled error of the process.
  const drop = () => {
    const at = idle.indexOf(worker);
    if (at !== -1) idle.splice(at, 1);
  };
  worker.once('error', drop);
  worker.once('exit', drop);
}

/**
 * Starts a thread for `rules` now, for the next scan of this process to take, unless one is kept
 * already. `svc scan` calls it before it opens the store and derives the key, so the thread loads
 * its rules meanwhile: that load is most of a small folder's scan. Like a kept thread, it keeps no
 * process alive, and one that fails is dropped.
 */
export function startScanThread(rules: string = SCANNER_RULES): void {
  if ((idleThreads.get(rules)?.length ?? 0) > 0) return;
  returnThread(rules, newThread(rules));
}

/** The largest file first: a large file met last would leave one thread scanning it while the others wait. */
class LargestFirst {
  private readonly heap: { target: FileToScan; index: number }[] = [];
  get size(): number {
    return this.heap.length;
  }
  push(item: { target: FileToScan; index: number }): void {
    const heap = this.heap;
    heap.push(item);
    for (let i = heap.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }
  pop(): { target: FileToScan; index: number } | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let i = 0; ;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let best = i;
        if (left < heap.length && this.before(heap[left]!, heap[best]!)) best = left;
        if (right < heap.length && this.before(heap[right]!, heap[best]!)) best = right;
        if (best === i) break;
        [heap[i], heap[best]] = [heap[best]!, heap[i]!];
        i = best;
      }
    }
    return top;
  }
  private before(a: { target: FileToScan; index: number }, b: { target: FileToScan; index: number }) {
    return a.target.bytes > b.target.bytes || (a.target.bytes === b.target.bytes && a.index < b.index);
  }
}

/** What a thread needs of a file to scan it. */
const jobOf = ({ path, file, identity }: FileToScan) => ({ path, file, identity });

export async function scanFolder(root: string, options: FolderScanOptions): Promise<FolderScan> {
  const count = Math.max(1, options.threads ?? Math.min(4, availableParallelism()));
  const skipped: Skipped[] = [];
  const outcomes: { file: string; outcome: ScanOutcome }[] = [];
  const queue = new LargestFirst();
  let walked = false;
  /** Files and bytes the walk has handed to the threads. */
  let filesFound = 0;
  let found = 0;
  /** Files and bytes the threads have answered for. */
  let done = 0;
  let bytes = 0;
  /** Wakes the threads waiting for files when the walk finds more, or ends. */
  let wake: () => void = () => {};
  let more = new Promise<void>((resolve) => (wake = resolve));
  const announce = () => {
    const woken = wake;
    more = new Promise<void>((resolve) => (wake = resolve));
    woken();
  };

  /**
   * Progress after each file answered. When every file found so far is answered but the walk is
   * still going (past ignored folders, say), the report waits for the walk's end: then it carries
   * the whole, and the last report always does.
   */
  let held = false;
  const report = () => {
    held = !walked && done === filesFound;
    if (!held)
      options.onProgress?.({ files: done, bytes, of: { files: filesFound, bytes: found, final: walked } });
  };

  /** The next message for a thread: the largest file waiting, with more small ones beside it. */
  const nextBatch = (): WorkerBatch | undefined => {
    const first = queue.pop();
    if (!first) return undefined;
    const jobs = [{ index: first.index, ...jobOf(first.target) }];
    let size = first.target.bytes;
    while (size < BATCH_BYTES && jobs.length < BATCH_FILES && queue.size > 0) {
      const next = queue.pop()!;
      jobs.push({ index: next.index, ...jobOf(next.target) });
      size += next.target.bytes;
    }
    return { key: options.key, jobs };
  };

  const files = new Map<number, string>();
  /** The first failure of a thread (its rules cannot load, a file crashes it): it fails the scan. */
  let failure: unknown;
  const fail = (error: unknown) => {
    failure ??= error;
    // Nothing more is sent: the other threads finish what they hold and stop.
    while (queue.pop());
    announce();
  };
  /**
   * One thread's part: batches until the walk has ended and nothing waits. Two are sent ahead, so
   * the thread starts its next batch as it answers the last, not a round trip later.
   */
  const runThread = async (worker: Worker, stopped: Promise<never>): Promise<void> => {
    const answers: ((answer: WorkerAnswer) => void)[] = [];
    worker.on('message', (answer: WorkerAnswer) => answers.shift()?.(answer));
    const sent: Promise<WorkerAnswer>[] = [];
    for (;;) {
      while (sent.length < BATCHES_AHEAD && failure === undefined) {
        const batch = nextBatch();
        if (!batch) break;
        sent.push(new Promise<WorkerAnswer>((resolve) => answers.push(resolve)));
        worker.postMessage(batch);
      }
      if (sent.length === 0) {
        if (walked || failure !== undefined) return;
        await Promise.race([more, stopped]);
        continue;
      }
      const answer = await Promise.race([sent.shift()!, stopped]);
      for (const { index, outcome } of answer.outcomes) {
        outcomes[index] = { file: files.get(index)!, outcome };
        done++;
        if ('bytes' in outcome) bytes += outcome.bytes;
        report();
      }
    }
  };

  const workers: Worker[] = [];
  const failed = new Set<Worker>();
  const threads: Promise<void>[] = [];
  const addThread = () => {
    const worker = takeThread(options.rules);
    workers.push(worker);
    // A thread that errs or exits is out of this scan (and of the kept threads) for good.
    const stopped = new Promise<never>((_, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`a scanning thread exited (code ${code})`)));
    });
    stopped.catch(() => {});
    threads.push(
      runThread(worker, stopped).catch((error: unknown) => {
        failed.add(worker);
        fail(error);
      }),
    );
  };
  // Kept threads cost nothing to use. A new one costs loading every rule, about a third of a
  // second of a core: without a count asked for, one more starts only for each NEW_THREAD_BYTES
  // the walk finds, so a small folder is not scanned by threads that are still loading.
  const adaptive = options.threads === undefined;
  const first = adaptive ? Math.min(count, Math.max(1, keptScanThreads(options.rules).length)) : count;
  for (let i = 0; i < first; i++) addThread();
  try {
    const source =
      options.only === undefined
        ? filesToScan(root, (s) => skipped.push(s), { gitConfig: true })
        : oneFile(root, options.only, skipped, options.namedRoot);
    const send = (target: FileToScan) => {
      files.set(filesFound, target.file);
      queue.push({ target, index: filesFound++ });
      found += target.bytes;
      if (adaptive && workers.length < count && found > workers.length * NEW_THREAD_BYTES) addThread();
      announce();
    };
    /** Files an `ask` rule holds for the person's answer. */
    const waiting: FileToScan[] = [];
    for await (const target of source) {
      if (failure !== undefined) break;
      const judged =
        target.named ??
        (options.namedRoot ? join(options.namedRoot, ...target.file.split('/')) : target.path);
      const admitted = options.admit ? await options.admit(judged) : true;
      if (admitted === 'ask') waiting.push(target);
      // 'ask-clean' and 'clean': a scan has no use for a clean copy.
      // A file only its clean copy may leave is never scanned: its fingerprints would let a reader
      // test guesses at its values.
      else if (admitted === true) send(target);
      else skipped.push({ file: target.file, reason: 'protected' });
    }
    if (waiting.length > 0 && failure === undefined) {
      const yes = options.confirm ? await options.confirm(waiting.map((t) => t.file)) : false;
      for (const target of waiting) {
        if (yes) send(target);
        else skipped.push({ file: target.file, reason: 'protected' });
      }
    }
  } catch (error) {
    fail(error);
  } finally {
    walked = true;
    announce();
    if (held) report();
    // Every thread is back before the scan answers, even when it failed.
    await Promise.all(threads);
    for (const worker of workers) {
      if (failed.has(worker)) await worker.terminate();
      else returnThread(options.rules, worker);
    }
  }
  if (failure !== undefined) throw failure;
  const findings: FolderFinding[] = [];
  let scanned = 0;
  for (const { file, outcome } of outcomes) {
    if ('skipped' in outcome) {
      skipped.push({ file, reason: outcome.skipped });
      continue;
    }
    scanned++;
    for (const finding of outcome.findings) findings.push({ file, ...finding });
  }
  return { findings, files_scanned: scanned, bytes_scanned: bytes, skipped };
}
