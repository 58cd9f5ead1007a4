// The rules nothing can loosen: svc's own data dir (the store, the key files) is never open to an
// agent, whatever an organization or this computer's rules say. One folder of it is the exception:
// the clean copies svc makes for agents (a rule's "clean copy only"), which an agent may read and
// do nothing else with.
import type { PlacedRule } from './rules.ts';

/** The folder of the data dir where svc puts the clean copies it makes for agents. */
export const CLEAN_COPIES_FOLDER = 'clean';

export function cleanCopiesDir(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/${CLEAN_COPIES_FOLDER}`;
}

export function builtinRules(dataDir: string): PlacedRule[] {
  const dir = dataDir.replace(/\/+$/, '');
  const clean = cleanCopiesDir(dir);
  return [
    {
      id: 'builtin:svc-data',
      level: 'builtin',
      rule: {
        effect: 'deny',
        paths: [dir, `!${clean}`],
        reason: "svc's own data and keys: agents reach them only through svc's tools",
      },
    },
    {
      id: 'builtin:svc-clean-copies',
      level: 'builtin',
      rule: {
        effect: 'deny',
        paths: [clean],
        actions: ['search', 'run', 'write', 'use_key'],
        reason: 'clean copies svc made for agents: an agent reads the one it was given, nothing more',
      },
    },
  ];
}
