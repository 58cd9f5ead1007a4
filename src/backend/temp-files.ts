// svc's own temporary files while they are being written: a sealed copy beside the file it seals,
// a private folder of plaintext being released, an archive object not yet named. An interrupted
// process (SIGINT, SIGTERM) removes them before it ends, so no plaintext of a sealed file outlives
// it; what a killed one leaves (SIGKILL, a power loss) the next operation in that folder sweeps
// (`sweepLeftovers`, seal-files.ts). The handlers are installed only while something is held.
import { rmSync } from 'node:fs';

/**
 * Not SIGHUP: a command started under nohup ignores it, and a listener would end that command when
 * its terminal closes (Node cannot tell an ignored signal from one left to its default).
 */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

const held = new Set<string>();

/** Marks `path` as being written by this process: held before it is made, so no moment goes uncovered. */
export function holdTemp(path: string): void {
  held.add(path);
  if (held.size === 1) for (const signal of SIGNALS) process.on(signal, removeOnSignal);
}

/** `path` is gone or has its final name: an interruption no longer needs to remove it. */
export function releaseTemp(path: string): void {
  if (!held.delete(path)) return;
  if (held.size === 0) for (const signal of SIGNALS) process.off(signal, removeOnSignal);
}

function removeOnSignal(signal: NodeJS.Signals): void {
  // Synchronous: nothing else runs until every held path is gone. A write of the runtime's own
  // thread pool may still put a file into a folder being removed (ENOTEMPTY): it is tried again.
  for (const path of held) {
    try {
      rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 10 });
    } catch {
      // Removed by what was writing it meanwhile, or not ours to remove any more: go on with the rest.
    }
  }
  held.clear();
  for (const each of SIGNALS) process.off(each, removeOnSignal);
  // With no other listener (a server's orderly stop), the signal's own action ends the process, as
  // it would have had svc not been listening: a shell sees it was interrupted.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}
