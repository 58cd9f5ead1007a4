// Types of hook-launch.js, which is plain JavaScript so that a hook starts without the type stripper.
import type { Script } from 'node:vm';
import type { runHook } from './hook.ts';

export const SVC_ROOT: string;
export const MANIFEST_FORMAT: number;
export const BUNDLE_SWITCH: string;

/** What a built bundle is, and what it was built from: file names in the bundle's folder. */
export interface Manifest {
  format: number;
  /** The copy of svc it was built from, and the runtime that built it. */
  root: string;
  node: string;
  arch: string;
  /** The script, and its V8 code cache taken after a few decisions. */
  script: { file: string; bytes: number };
  cache: { file: string; bytes: number };
  /** Every file the script was built from, and one file holding their bytes one after another. */
  sources: { file: string; files: { path: string; bytes: number }[] };
}

/** What the bundle exports: src/entry/hook.ts. */
export interface HookModule {
  main(client: string): Promise<void>;
  runHook: typeof runHook;
}

export function dataDirOf(env: NodeJS.ProcessEnv): string;
export function perUserDataDir(platform: NodeJS.Platform, env: NodeJS.ProcessEnv, home: string): string;
export function bundleDir(dataDir: string, entry?: 'hook' | 'mcp'): string;
export function compileBundle(code: string, filename: string, cachedData?: Buffer): Script;
/** The exports of a bundle's entry: HookModule for the hook's, src/entry/mcp-stdio.ts for the MCP server's. */
export function evaluateBundle<T = HookModule>(script: Script, filename: string): T;
export function loadBundle<T = HookModule>(dir: string): { exports: T; cacheRejected: boolean } | undefined;
export function startHook(client: string): Promise<void>;
