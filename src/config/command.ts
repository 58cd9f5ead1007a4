// The command line that runs this svc from any folder: the runtime and bin/svc.js by absolute
// path. What svc tells a person or a model to run must work where they are, and outside this
// checkout `npx svc` is another package.
import { fileURLToPath } from 'node:url';

const quote = (s: string) => (/^[\w./@:=+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** `svc ARGS` as a shell command line, for instructions in messages. */
export function svcCommand(...args: string[]): string {
  const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
  return [process.execPath, bin, ...args].map(quote).join(' ');
}
