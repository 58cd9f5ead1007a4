// The store's checkpointer thread (see `Store` in db.ts): it copies the write-ahead log back into
// the database file between commits, so that the thread serving requests seldom has to. SQLite
// does this at the commit that takes the log past 1,000 pages, on the committing thread: under a
// steady stream of receipts that was about half of what a commit cost (about 10 ms to copy a
// thousand pages), paid by whichever request's commit crossed the line. That checkpoint still runs,
// and is what lets the log start over, but finds the pages copied already.
import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

export interface CheckpointerSetup {
  file: string;
  /** Pause between two checkpoints (one with nothing to copy costs a few microseconds). */
  intervalMs: number;
}

const { file, intervalMs } = workerData as CheckpointerSetup;
// No busy wait: PASSIVE never waits for a lock; what it cannot copy now is copied next time.
const db = new DatabaseSync(file, { timeout: 0 });
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    checkpoint.get();
  } catch {
    // Busy (another process checkpoints or recovers the log): the next round tries again.
  }
}, intervalMs);

parentPort!.on('message', (message: unknown) => {
  if (message !== 'close') return;
  clearInterval(timer);
  db.close();
  parentPort!.close();
});
