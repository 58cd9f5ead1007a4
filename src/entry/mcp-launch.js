// How `svc mcp` starts (docs/MCP.md, Start-up), as a hook does (hook-launch.js): a client waits for
// its tools/list answer, and most of that wait is loading the MCP SDK's server (zod, ajv,
// zod-to-json-schema: about 300 modules). hook-bundle.ts builds the start path
// (src/entry/mcp-stdio.ts, src/tools/server.ts, the SDK modules they import statically) into one
// script with a V8 code cache, in the data dir's `mcp` folder for this runtime and this copy of
// svc, and the server starts from it while every file it was built from holds the same bytes.
// Otherwise it starts from the sources, as before, and has a new one built in the background.
// svc's other modules (its errors, which the tools throw and the server recognizes) and everything
// loaded with the first tool call come from the sources either way. The same code answers.
import { SVC_ROOT, bundleDir, dataDirOf, loadBundle } from './hook-launch.js';

const { join } = process.getBuiltinModule('node:path');

/** Set to `off`, `svc mcp` starts from the sources and builds nothing (as SVC_HOOK_BUNDLE for hooks). */
export const MCP_BUNDLE_SWITCH = 'SVC_MCP_BUNDLE';

/** Serves until stdin ends or a signal arrives; then `onStop` runs. bin/svc.js catches what throws. */
export async function startMcp(onStop) {
  const off = process.env[MCP_BUNDLE_SWITCH]?.trim() === 'off';
  // The sources the bundle leaves out are TypeScript: the compile cache keeps their stripped form.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  const dir = bundleDir(dataDirOf(process.env), 'mcp');
  const bundled = off ? undefined : loadBundle(dir);
  const { serveMcpOverStdio } = bundled ? bundled.exports : await import('./mcp-stdio.ts');
  await serveMcpOverStdio(onStop);
  // No bundle, or a code cache the runtime refused (other V8 flags, say): one for the next start.
  if (!off && (!bundled || bundled.cacheRejected)) {
    const svcBin = join(SVC_ROOT, 'bin', 'svc.js');
    await (await import('./hook-rebuild.ts')).requestBuild(dir, svcBin, ['mcp', '--bundle', '--quiet']);
  }
}
