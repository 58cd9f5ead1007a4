// The fast-start bundles, one per entry in the data dir: the hook's, which hook-launch.js starts
// from (docs/HOOKS.md, Speed), and the MCP server's, which mcp-launch.js starts from (docs/MCP.md,
// Start-up). An entry and every module it imports statically, as one CommonJS script (rolldown),
// with the V8 code cache of that script taken after it has done its work on samples (the hook
// decided a few events; the server answered initialize and tools/list), so that the functions it
// runs come compiled. What the entry imports dynamically (for the hook the store and the zod
// schemas that say why an input is refused; for the server its tools) stays outside and loads from
// the sources when needed. Beside them goes a copy of every file the script was built from, which
// the launcher compares with the files as they are, and the manifest naming them all. Built by
// `svc hook bundle`, `svc hook install`, `svc mcp --bundle`, and in the background for a start that
// found none that fits (hook-rebuild.ts).
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { rmSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Plugin } from 'rolldown';
import { ensurePrivateDir, writeFileAtomic } from '../config/paths.ts';
import {
  MANIFEST_FORMAT,
  SVC_ROOT,
  bundleDir,
  compileBundle,
  evaluateBundle,
  type HookModule,
  type Manifest,
} from './hook-launch.js';

/** What each bundle holds, and how its code cache is warmed. */
interface Entry {
  file: string;
  /**
   * svc's modules the script holds; undefined: all it imports statically. The others it requires
   * from the sources by absolute path, so that they are the same instances as the ones the
   * dynamically loaded part imports (an error class a tool throws is the one the server checks).
   */
  inline?: string[];
  warm(exports: unknown): Promise<void>;
}

const source = (...parts: string[]) => join(SVC_ROOT, 'src', ...parts);
const ENTRIES: Record<'hook' | 'mcp', Entry> = {
  hook: { file: source('entry', 'hook.ts'), warm: (hook) => warmHook(hook as HookModule) },
  mcp: {
    file: source('entry', 'mcp-stdio.ts'),
    inline: [
      source('entry', 'mcp-stdio.ts'),
      source('tools', 'server.ts'),
      source('tools', 'tool-list.json'),
    ],
    warm: (mcp) => warmMcp(mcp as typeof import('./mcp-stdio.ts')),
  },
};

export interface BundleReport {
  dir: string;
  /** Modules in the script (svc's and its packages'). */
  modules: number;
  /** Files the script was built from: the modules and their packages' package.json. */
  sources: { files: number; bytes: number };
  script_bytes: number;
  cache_bytes: number;
  /** Whether the runtime accepts the code cache for the script (it should: the same runtime made it). */
  cache_accepted: boolean;
  build_ms: number;
}

/** Builds the hook's bundle for this runtime into the data dir's hook folder, replacing the one there. */
export const buildHookBundle = (dataDir: string) => buildBundle(dataDir, 'hook');

/** Builds `svc mcp`'s bundle for this runtime into the data dir's mcp folder, replacing the one there. */
export const buildMcpBundle = (dataDir: string) => buildBundle(dataDir, 'mcp');

async function buildBundle(dataDir: string, name: 'hook' | 'mcp'): Promise<BundleReport> {
  const started = Date.now();
  const entry = ENTRIES[name];
  const dir = ensurePrivateDir(bundleDir(dataDir, name));
  const marker = join(dir, 'building');
  try {
    const { code, read, modules } = await bundle(entry);
    const sources = withPackageFiles(read);
    const { createHash } = await import('node:crypto');
    const id = createHash('sha256').update(code).digest('hex').slice(0, 16);
    const script = { file: `${id}.cjs`, bytes: Buffer.byteLength(code) };
    writeFileAtomic(join(dir, script.file), code, 0o600);
    const cacheData = await warmCache(code, join(dir, script.file), entry);
    const cache = { file: `${id}.v8`, bytes: cacheData.length };
    writeFileAtomic(join(dir, cache.file), cacheData, 0o600);
    const copy = {
      file: `${id}.sources`,
      files: [...sources].map(([path, b]) => ({ path, bytes: b.length })),
    };
    writeFileAtomic(join(dir, copy.file), Buffer.concat([...sources.values()]), 0o600);
    // A source edited while this ran would leave a script older than its copy: build again then.
    for (const [path, bytes] of sources) {
      if (!readFileSync(path).equals(bytes)) throw new Error(`${path} changed during the build; build again`);
    }
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      root: SVC_ROOT,
      node: process.version,
      arch: process.arch,
      script,
      cache,
      sources: copy,
    };
    writeFileAtomic(join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, 0o600);
    // Earlier builds' files go; a start that read the old manifest just now falls back to the sources.
    const keep = new Set(['manifest.json', 'building', script.file, cache.file, copy.file]);
    for (const name of readdirSync(dir)) if (!keep.has(name)) rmSync(join(dir, name), { force: true });
    rmSync(marker, { force: true });
    return {
      dir,
      modules,
      sources: { files: sources.size, bytes: copy.files.reduce((n, f) => n + f.bytes, 0) },
      script_bytes: script.bytes,
      cache_bytes: cache.bytes,
      cache_accepted: compileBundle(code, join(dir, script.file), cacheData).cachedDataRejected !== true,
      build_ms: Date.now() - started,
    };
  } catch (error) {
    // The marker stays, saying why, so that starts ask again only once it is old (hook-rebuild.ts).
    writeFileSync(marker, `the last build failed: ${(error as Error).message}\n`, { mode: 0o600 });
    throw error;
  }
}

/**
 * The entry's start path as one script. Every file is read here, once, so that the copy kept beside
 * the script holds exactly the bytes it was built from.
 */
async function bundle(entry: Entry): Promise<{ code: string; read: Map<string, Buffer>; modules: number }> {
  const { rolldown } = await import('rolldown');
  const read = new Map<string, Buffer>();
  const svcSources = join(SVC_ROOT, 'src') + sep;
  const plugin: Plugin = {
    name: 'svc-bundle',
    async resolveId(source, importer, options) {
      const dynamic = options.kind === 'dynamic-import';
      if (!dynamic && !entry.inline) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (!resolved || resolved.external) return null;
      // Loaded when needed, by the runtime's own loader, from the sources where they are.
      if (dynamic) return { id: pathToFileURL(resolved.id).href, external: 'absolute' };
      // One of svc's modules the script leaves to the sources (Entry.inline).
      if (resolved.id.startsWith(svcSources) && !entry.inline!.includes(resolved.id))
        return { id: resolved.id, external: 'absolute' };
      return null;
    },
    load(id) {
      if (id.startsWith('\0')) return null;
      const bytes = readFileSync(id);
      read.set(id, bytes);
      const code = bytes.toString('utf8');
      // The script runs from the data dir: a module that finds files beside itself would look there.
      if (/\bimport\.meta\b/.test(code)) this.error(`${id} uses import.meta, which a bundle cannot keep`);
      return code;
    },
  };
  // Without tsconfig.json, as Node's type stripping reads none: the script is what the sources say.
  const build = await rolldown({
    input: entry.file,
    platform: 'node',
    tsconfig: false,
    plugins: [plugin],
    logLevel: 'silent',
  });
  try {
    // Strict, as the ES modules it is made from are.
    const { output } = await build.generate({ format: 'cjs', strict: true, dynamicImportInCjs: true });
    const [chunk, ...others] = output;
    if (!chunk || chunk.type !== 'chunk' || others.length > 0)
      throw new Error('the bundle is not one script');
    // hook-launch.js gives the script Node's builtins and svc's sources as its only `require`.
    const required = chunk.imports.filter(
      (id) => !isBuiltin(id) && !(entry.inline && id.startsWith(svcSources) && !entry.inline.includes(id)),
    );
    if (required.length) throw new Error(`the bundle would require ${required.join(', ')}`);
    return { code: chunk.code, read, modules: chunk.moduleIds.filter((id) => !id.startsWith('\0')).length };
  } finally {
    await build.close();
  }
}

/** The files read, and the package.json of each package among them (it says which file a package is). */
function withPackageFiles(read: Map<string, Buffer>): Map<string, Buffer> {
  const files = new Map(read);
  const marker = `${sep}node_modules${sep}`;
  for (const path of read.keys()) {
    const at = path.lastIndexOf(marker);
    if (at < 0) continue;
    const [scope, name] = path.slice(at + marker.length).split(sep);
    const root =
      path.slice(0, at + marker.length) + (scope!.startsWith('@') ? `${scope}${sep}${name}` : scope);
    const manifest = join(root, 'package.json');
    if (!files.has(manifest)) files.set(manifest, readFileSync(manifest));
  }
  return files;
}

/**
 * The script's V8 code cache, taken after it has done its work on samples: a cache taken at compile
 * time holds only the top level, and compiling the rest on every start would cost more than
 * reading it compiled.
 */
async function warmCache(code: string, scriptFile: string, entry: Entry): Promise<Buffer> {
  const script = compileBundle(code, scriptFile);
  await entry.warm(evaluateBundle<unknown>(script, scriptFile));
  return script.createCachedData();
}

/**
 * The MCP server answers what a client sends first (initialize, tools/list), over a transport that
 * keeps its answers.
 */
async function warmMcp(mcp: typeof import('./mcp-stdio.ts')): Promise<void> {
  const server = mcp.createMcpServer(() => {
    throw new Error('no tool is called while warming');
  });
  const answered: unknown[] = [];
  const transport: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message) => {
      answered.push(message);
    },
  };
  await server.connect(transport);
  const messages: JSONRPCMessage[] = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'svc', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  for (const message of messages) {
    transport.onmessage?.(message);
    await new Promise((resolve) => setImmediate(resolve));
  }
  await server.close();
  if (answered.length < 2) throw new Error('the MCP server did not answer initialize and tools/list');
}

/** The hook decides sample events (in a throwaway project and data dir). */
async function warmHook(hook: HookModule): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'svc-hook-warm-'));
  try {
    const project = join(scratch, 'shop');
    for (const folder of ['.svc', '.git', 'src', 'secrets']) ensurePrivateDir(join(project, folder));
    writeFileSync(join(project, '.env'), 'K=1');
    writeFileSync(join(project, 'src', 'app.ts'), '');
    writeFileSync(
      join(project, '.svc', 'rules.json'),
      JSON.stringify([
        { effect: 'deny', paths: ['.env', 'secrets/', '!secrets/README.md'], reason: 'keys' },
        { effect: 'ask', paths: ['*.csv'], actions: ['read', 'search'], who: ['claude-code', 'cursor'] },
        {
          effect: 'redact',
          paths: ['~/exports/'],
          when: { tz: 'UTC', hours: '00:00-24:00', weekdays: ['mon'] },
        },
      ]),
    );
    const env = { HOME: scratch, SVC_HOME: join(scratch, 'svc-home'), PATH: process.env.PATH };
    const claude = (tool_name: string, tool_input: object) =>
      JSON.stringify({ hook_event_name: 'PreToolUse', cwd: project, tool_name, tool_input });
    const events: [client: string, event: string][] = [
      ['claude', claude('Read', { file_path: '.env' })],
      ['claude', claude('Read', { file_path: 'src/app.ts' })],
      ['claude', claude('Edit', { file_path: 'src/app.ts' })],
      ['claude', claude('Grep', { pattern: 'x', path: 'src' })],
      ['claude', claude('Bash', { command: 'grep -v "^#" .env | sort | head -5 && echo done' })],
      ['claude', claude('Bash', { command: 'F=.env; cat "$F" > out.txt; ls src/*.ts; git diff -- src' })],
      ['claude', claude('mcp__files__read_file', { path: 'secrets/key.pem' })],
      [
        'cursor',
        JSON.stringify({ hook_event_name: 'beforeReadFile', file_path: '.env', workspace_roots: [project] }),
      ],
      [
        'cursor',
        JSON.stringify({ hook_event_name: 'beforeShellExecution', command: 'cat .env', cwd: project }),
      ],
    ];
    for (const [client, event] of events) await hook.runHook(client, event, env);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
