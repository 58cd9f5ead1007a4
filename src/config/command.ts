// The command line that runs this svc from any folder: the runtime and bin/svc.js by absolute
// path, and the variables that keep it on the store this one uses. What svc tells a person or a
// model to run must work where they are, and outside this checkout `npx svc` is another package.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A word as a POSIX shell reads it back: as it is when plain, else in single quotes. */
export const shellQuote = (s: string) => (/^[\w./@:=+-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`);

/** `svc ARGS` as the words to start it: this runtime and bin/svc.js, by absolute path. */
export function svcArgv(...args: string[]): string[] {
  return [process.execPath, fileURLToPath(new URL('../../bin/svc.js', import.meta.url)), ...args];
}

/**
 * `svc ARGS` as a shell command line, for instructions in messages: with the store variables this
 * process has (`SVC_HOME=… SVC_VAULT=… node …/svc.js ARGS`), so that the person who runs it in a
 * terminal of their own reaches the store this process uses (a client's MCP server is often given
 * them in its configuration alone), not the default one.
 */
export function svcCommand(...args: string[]): string {
  return svcCommandIn(process.env, ...args);
}

/** `svcCommand` for a process with the environment `env`. */
export function svcCommandIn(env: NodeJS.ProcessEnv, ...args: string[]): string {
  // `NAME=value command` is a POSIX shell's: Windows' shells have no such prefix, and get the command alone.
  const store =
    process.platform === 'win32'
      ? []
      : Object.entries(storeEnvironment(env)).map(([name, value]) => `${name}=${shellQuote(value)}`);
  return [...store, ...svcArgv(...args).map(shellQuote)].join(' ');
}

/** The variables that choose which store svc uses: its data dir, and where its keys live. */
export const STORE_VARIABLES = ['SVC_HOME', 'SVC_VAULT'] as const;

/**
 * The store variables set here, for a command that another program starts (a client's MCP
 * server, a hook) without this environment: it must use the store this one does. SVC_HOME is made
 * absolute, as that program runs in folders of its own. Never a credential.
 */
export function storeEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const set: Record<string, string> = {};
  for (const name of STORE_VARIABLES) {
    const value = env[name]?.trim();
    if (value) set[name] = name === 'SVC_HOME' ? resolve(value) : value;
  }
  return set;
}
