#!/usr/bin/env node
// The `svc` command. svc runs its TypeScript sources directly, which needs Node >= 22.13.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(
    `svc needs Node.js 22.13 or newer (this is ${process.versions.node}); run it through npm or npx in the repository.`,
  );
  process.exit(2);
}
// Cache compiled (and type-stripped) modules between runs: `svc mcp` and hook processes start in
// a client's critical path. A cache that cannot be written is skipped silently.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import('../src/cli/main.ts');
