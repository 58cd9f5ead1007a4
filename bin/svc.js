#!/usr/bin/env node
// The `svc` command. svc runs its TypeScript sources directly: Node strips their types without a flag
// from 22.18 on the 22 line and from 23.6 on.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18) || (major === 23 && minor < 6)) {
  console.error(
    `svc needs Node.js 22.18 or newer, or 23.6 or newer on the 23 line (this is ${process.versions.node}); run it through npm or npx in the repository.`,
  );
  process.exit(2);
}
if (
  process.argv.length === 4 &&
  process.argv[2] === 'hook' &&
  !process.argv[3].startsWith('-') &&
  !['install', 'bundle'].includes(process.argv[3])
) {
  // Exactly `svc hook CLIENT`, as installed: anything more (`--help`) is the command line's.
  // A hook runs before every tool call of an agent: it loads the gate alone (from its bundle when
  // one fits, src/entry/hook-launch.js), never the command line's framework, and anything that
  // stops it blocks the call (fail closed).
  try {
    const { startHook } = await import('../src/entry/hook-launch.js');
    await startHook(process.argv[3]);
    // The answer is written (synchronously): end now rather than tear the runtime down in order,
    // a millisecond of every tool call. Not after an error, whose message may still be in flight.
    process.exit();
  } catch (error) {
    process.stderr.write(`svc hook: could not run (${error?.message ?? error}); the call is blocked\n`);
    process.exitCode = 2;
  }
} else if (process.argv.length === 3 && process.argv[2] === 'mcp') {
  // `svc mcp` (without options) starts in a client's critical path, and its client waits for the
  // tools/list answer: the server starts here, without the command line's framework and the
  // modules its other commands import, from its bundle when one fits (src/entry/mcp-launch.js;
  // docs/MCP.md, Start-up).
  try {
    const { startMcp } = await import('../src/entry/mcp-launch.js');
    await startMcp(() => process.exit(0));
  } catch (error) {
    process.stderr.write(`svc: ${error?.message ?? error}\n`);
    process.exit(1);
  }
} else {
  // Cache compiled (and type-stripped) modules between runs: `svc mcp` starts in a client's
  // critical path too. A cache that cannot be written is skipped silently.
  process.getBuiltinModule('node:module').enableCompileCache?.();
  if (process.argv[2] === 'scan' && !['feedback', '--help', '-h', undefined].includes(process.argv[3])) {
    // `svc scan PATH` starts its scanning thread first: the thread's load (its rules, about 90 ms)
    // then overlaps the command line's own, which a small folder's scan had waited on. Only a head
    // start: if it cannot be had, the scan starts its threads itself and says what went wrong.
    try {
      (await import('../src/backend/scan-folder.ts')).startScanThread();
    } catch {
      // No head start: the scan below starts its own threads.
    }
  }
  await import('../src/cli/main.ts');
}
