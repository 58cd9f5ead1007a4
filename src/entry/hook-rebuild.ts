// Asks for a new bundle (hook-bundle.ts) when a hook or `svc mcp` found none that fits:
// `svc hook bundle` or `svc mcp --bundle` started in the background, detached, after the hook has
// answered (after the MCP server has connected), at most one at a time for a bundle folder.
import { closeSync, openSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../config/paths.ts';

/** A build asked for less than this long ago, and not finished, is not asked for again. */
const BUILD_PATIENCE_MS = 10 * 60_000;

/**
 * Whether this process may start a build: it made the marker, or found one older than
 * BUILD_PATIENCE_MS (a build that failed or died) and renewed it. The builder removes the marker
 * when it is done, so at most one build runs at a time for a bundle folder.
 */
function claimBuild(marker: string): boolean {
  try {
    closeSync(openSync(marker, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    if (Date.now() - statSync(marker).mtimeMs < BUILD_PATIENCE_MS) return false;
    const now = new Date();
    utimesSync(marker, now, now);
    return true;
  }
}

/**
 * Starts `svc ARGS` (the build) in the background, detached, under this process's runtime flags
 * (so that the code cache it makes is one this runtime accepts), for the next start to be fast.
 */
export async function requestBuild(dir: string, svcBin: string, args: string[]): Promise<void> {
  try {
    if (!claimBuild(join(ensurePrivateDir(dir), 'building'))) return;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [...process.execArgv, svcBin, ...args], {
      detached: true,
      stdio: 'ignore',
      env: process.env,
    });
    // Nothing may now end this process with another exit code (a hook's answer is given).
    child.on('error', () => {});
    child.unref();
  } catch {
    // No build now; a later hook asks again. The answer already given stands.
  }
}
