// How a hook process starts (docs/HOOKS.md, Speed), and what `svc mcp` shares of it
// (mcp-launch.js; docs/MCP.md, Start-up). A hook runs before every tool call of an
// agent, and loading the hook path from its sources (a score of TypeScript modules through the ESM
// loader, with the compile cache and the type stripper) takes about as long again as the runtime's
// own start. So hook-bundle.ts builds the hook path into one script with a V8 code cache, kept in
// the data dir for this runtime and this copy of svc, and a hook starts from it when every file it
// was built from holds the same bytes now. Otherwise, or when anything about it cannot be read, the
// hook runs from the sources, as before, and has a new one built for the next call.
// Either way the same code decides.
//
// Plain JavaScript, typed by hook-launch.d.ts: every hook loads this file before anything else,
// and as TypeScript it would need the compile cache and the type stripper first, about 2 ms of a
// hook's 10. For the same reason node:fs comes through process.getBuiltinModule: for an import, the
// ESM loader builds a namespace of every export of node:fs, fs.promises included, another 4 ms.
const { closeSync, openSync, readFileSync, readSync } = process.getBuiltinModule('node:fs');
const { join, sep, win32 } = process.getBuiltinModule('node:path');
const vm = process.getBuiltinModule('node:vm');

/** The root of this copy of svc (bin/, src/). */
export const SVC_ROOT = join(import.meta.dirname, '..', '..');

/** Bumped when the manifest's layout changes: a bundle described another way is built again. */
export const MANIFEST_FORMAT = 1;

/** Set to `off`, hooks run from the sources and build nothing (for tests and for finding faults). */
export const BUNDLE_SWITCH = 'SVC_HOOK_BUNDLE';

/**
 * svc's data dir, as src/config/data-dir.ts has it (test/entry/hook-launch.test.ts holds the two
 * equal), written again here so that a hook needs no TypeScript before it starts.
 */
export function dataDirOf(env) {
  const fromEnv = env.SVC_HOME?.trim();
  if (fromEnv) return fromEnv;
  const home = (process.platform !== 'win32' && env.HOME) || process.getBuiltinModule('node:os').homedir();
  return perUserDataDir(process.platform, env, home);
}

export function perUserDataDir(platform, env, home) {
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'svc');
  if (platform === 'win32') {
    return win32.join(env.LOCALAPPDATA || win32.join(home, 'AppData', 'Local'), 'svc', 'Data');
  }
  return join(env.XDG_DATA_HOME || join(home, '.local', 'share'), 'svc');
}

/**
 * The folder of an entry's bundle (`hook`, `mcp`) for this runtime and this copy of svc: a code
 * cache holds only for the runtime that made it, and two checkouts sharing a data dir must not take
 * each other's bundle.
 */
export function bundleDir(dataDir, entry = 'hook') {
  return join(dataDir, entry, `${process.version}-${process.arch}-${fnv1a(SVC_ROOT)}`);
}

/** A short name for a path (FNV-1a, 32 bits): only to tell folders apart; the manifest names the root. */
function fnv1a(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

/**
 * Compiles the bundle as a CommonJS module, with its code cache when given one. Its dynamic
 * imports (the store, the zod schemas, loaded only when needed) go to the runtime's own loader,
 * from the sources. The builder compiles it the same way, so that the cache it makes is accepted.
 */
export function compileBundle(code, filename, cachedData) {
  return new vm.Script(`(function (exports, require, module, __filename, __dirname) {${code}\n})`, {
    filename,
    ...(cachedData ? { cachedData } : {}),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
}

/**
 * The runtime warns, once, that the loader constant the bundle's dynamic imports use is
 * experimental. A hook's stderr is read by its client (and shown to its person), so that one
 * warning is dropped; every other passes.
 */
function quietLoaderWarning() {
  const emit = process.emitWarning;
  process.emitWarning = function (warning, ...rest) {
    const message = typeof warning === 'string' ? warning : warning?.message;
    if (typeof message === 'string' && message.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return emit.call(this, warning, ...rest);
  };
}

/**
 * Runs a compiled bundle's top level and gives its exports. A bundle requires Node's builtins and,
 * for an entry whose modules are shared with what loads later (the MCP server's errors, which its
 * tools throw), svc's own source files by absolute path (the builder checks): those load through
 * the runtime's loader, as the one instance a later `import` of them finds too.
 */
export function evaluateBundle(script, filename) {
  quietLoaderWarning();
  const module = { exports: {} };
  const require = (id) => {
    const builtin = process.getBuiltinModule(id);
    if (builtin) return builtin;
    if (id.startsWith(join(SVC_ROOT, 'src') + sep)) {
      return process.getBuiltinModule('node:module').createRequire(id)(id);
    }
    throw new Error(`a bundle requires ${id}, which is neither a builtin nor one of svc's sources`);
  };
  script.runInThisContext()(module.exports, require, module, filename, join(filename, '..'));
  return module.exports;
}

/**
 * Whether every file holds the bytes it held when the bundle was built, `built` being those bytes
 * one after another: compared whole, not hashed, since node:crypto alone takes longer to load than
 * reading them all. Each file is read into its place in one buffer, asking for a byte more than it
 * held (a file that grew returns it), and the whole is compared once.
 */
function unchanged(files, built) {
  const now = Buffer.allocUnsafe(built.length + 1);
  let at = 0;
  for (const { path, bytes } of files) {
    const fd = openSync(path, 'r');
    try {
      if (readSync(fd, now, at, bytes + 1, null) !== bytes) return false;
    } finally {
      closeSync(fd);
    }
    at += bytes;
  }
  return at === built.length && now.subarray(0, at).equals(built);
}

/**
 * The bundle in `dir` when it is there, whole, made by this runtime for this copy of svc, and built
 * from the sources as they are now; undefined otherwise.
 */
export function loadBundle(dir) {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    if (
      manifest.format !== MANIFEST_FORMAT ||
      manifest.root !== SVC_ROOT ||
      manifest.node !== process.version ||
      manifest.arch !== process.arch
    ) {
      return undefined;
    }
    if (!unchanged(manifest.sources.files, readFileSync(join(dir, manifest.sources.file)))) return undefined;
    const scriptFile = join(dir, manifest.script.file);
    const code = readFileSync(scriptFile);
    const cache = readFileSync(join(dir, manifest.cache.file));
    // The builder writes each file whole and renames it into place; another size is another hand's.
    if (code.length !== manifest.script.bytes || cache.length !== manifest.cache.bytes) return undefined;
    const script = compileBundle(code.toString('utf8'), scriptFile, cache);
    return { exports: evaluateBundle(script, scriptFile), cacheRejected: script.cachedDataRejected === true };
  } catch {
    // Missing, unreadable or broken: the sources decide instead.
    return undefined;
  }
}

/** The hook process: from the bundle when it fits, else from the sources. bin/svc.js catches what throws. */
export async function startHook(client) {
  const off = process.env[BUNDLE_SWITCH]?.trim() === 'off';
  const dir = bundleDir(dataDirOf(process.env));
  const bundled = off ? undefined : loadBundle(dir);
  if (bundled) {
    await bundled.exports.main(client);
    if (!bundled.cacheRejected) return;
  }
  // TypeScript from here on: the compile cache keeps its type-stripped form between runs.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  if (!bundled) await (await import('./hook.ts')).main(client);
  // No bundle, or a code cache the runtime refused (other V8 flags, say): one for the next call.
  if (!off) {
    const svcBin = join(SVC_ROOT, 'bin', 'svc.js');
    await (await import('./hook-rebuild.ts')).requestBuild(dir, svcBin, ['hook', 'bundle', '--quiet']);
  }
}
