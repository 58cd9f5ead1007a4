// The runtime's compile cache keeps modules' compiled (and type-stripped) form between runs.
// bin/svc.js enables it for every command but a hook, which starts from its bundle without it
// (docs/HOOKS.md, Speed): a hook enables it here just before it loads TypeScript from the sources
// on demand (the store for a daily limit, a zod schema to say why an input is refused), which would
// otherwise be stripped anew on every call. A scan thread starts without its process's cache and
// turns it on in the one line of JavaScript it starts from (scan-folder.ts), before any TypeScript.
export function enableCompileCache(): void {
  process.getBuiltinModule('node:module').enableCompileCache?.();
}
