// Preloaded (`--import`) into one hook process by the hook-latency benchmark: records every module
// the runtime's loader loads after it (ESM and CommonJS, svc's and packages' files, and builtins),
// and writes the list as JSON to the file HOOK_CENSUS_FILE names when the process exits.
import { statSync, writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';

export interface Loaded {
  url: string;
  /** Size of the file; 0 for a builtin. */
  bytes: number;
}

const loaded: Loaded[] = [];
registerHooks({
  load(url, context, next) {
    const result = next(url, context);
    loaded.push({ url, bytes: url.startsWith('file:') ? statSync(fileURLToPath(url)).size : 0 });
    return result;
  },
});
process.on('exit', () => writeFileSync(process.env.HOOK_CENSUS_FILE!, JSON.stringify(loaded)));
