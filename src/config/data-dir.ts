// Where svc keeps its data: SVC_HOME when set, else this OS's per-user data folder, the folder the
// env-paths package names (XDG_DATA_HOME or ~/.local/share on Linux and others, Application
// Support on macOS, %LOCALAPPDATA%\svc\Data on Windows). Written out here rather than taken from
// env-paths: its `import process from 'node:process'` has the runtime build a namespace of the
// process object, which sets up stdin, stdout and stderr, about 9 ms before the first line of
// every hook process (docs/HOOKS.md, Speed).
import { join, win32 } from 'node:path';

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SVC_HOME?.trim();
  return fromEnv ? fromEnv : perUserDataDir(process.platform, env, homeDir(env));
}

/**
 * The user's home folder: HOME, where the runtime itself would read it from (not on Windows), else
 * the runtime's answer. node:os loads only then: loading it costs a hook half a millisecond.
 */
export function homeDir(env: NodeJS.ProcessEnv): string {
  return (process.platform !== 'win32' && env.HOME) || process.getBuiltinModule('node:os').homedir();
}

/** The per-user data folder for svc on a platform. */
export function perUserDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'svc');
  if (platform === 'win32') {
    return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'svc', 'Data');
  }
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'svc');
}
