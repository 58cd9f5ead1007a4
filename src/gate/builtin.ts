// The rules nothing can loosen: svc's own data dir (the store, the key files) is never open to an
// agent, whatever an organization or this computer's rules say. One folder of it is the exception:
// the clean copies svc makes for agents (a rule's "clean copy only"), which an agent may read and
// do nothing else with. And the owner's rule files are the owner's: an agent reads them (the gate's
// answers name them) but never writes, moves or removes them, which would loosen what they say.
// What git runs by itself (hooks, settings) an agent changes only with the person's yes.
import type { PlacedRule } from './rules.ts';

/** The folder of the data dir where svc puts the clean copies it makes for agents. */
export const CLEAN_COPIES_FOLDER = 'clean';

export function cleanCopiesDir(dataDir: string): string {
  return `${dataDir.replace(/\/+$/, '')}/${CLEAN_COPIES_FOLDER}`;
}

/**
 * `rulesFile`: the file SVC_RULES_FILE names, when it does; every project's `.svc` folder is
 * covered wherever it is.
 */
export function builtinRules(dataDir: string, rulesFile?: string): PlacedRule[] {
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
    {
      id: 'builtin:svc-rule-files',
      level: 'builtin',
      rule: {
        effect: 'deny',
        paths: ['/**/.svc', ...(rulesFile ? [rulesFile] : [])],
        actions: ['write'],
        reason: "the owner's svc rules: an agent does not change, move or remove them",
      },
    },
    {
      // git runs a repository's hooks and the commands its settings name (core.fsmonitor,
      // core.pager) by itself, at the next `git status`: a write there is a command run later,
      // which no check of that later line can see.
      id: 'builtin:git-runs',
      level: 'builtin',
      rule: {
        effect: 'ask',
        paths: ['/**/.git/hooks', '/**/.git/config'],
        actions: ['write'],
        reason: 'what git runs by itself (a repository\u2019s hooks and settings): the person says yes first',
      },
    },
  ];
}
