// The rules nothing can loosen: svc's own data dir (the store, the key files) is never open to an
// agent, whatever an organization or this computer's rules say.
import type { PlacedRule } from './rules.ts';

export function builtinRules(dataDir: string): PlacedRule[] {
  const dir = dataDir.replace(/\/+$/, '');
  return [
    {
      id: 'builtin:svc-data',
      level: 'builtin',
      rule: {
        effect: 'deny',
        paths: [dir],
        reason: "svc's own data and keys: agents reach them only through svc's tools",
      },
    },
  ];
}
