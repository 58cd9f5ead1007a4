// Where svc keeps its data: SVC_HOME when set, else the per-user data dir of this OS.
import { mkdirSync } from 'node:fs';
import envPaths from 'env-paths';

export function resolveDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SVC_HOME?.trim();
  return fromEnv ? fromEnv : envPaths('svc', { suffix: '' }).data;
}

/** Creates the data dir if needed, private to this user (keys and the store live there). */
export function ensureDataDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
