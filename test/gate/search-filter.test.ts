// The model of what a search reads (src/gate/search-filter.ts) where it depends on files outside
// the project: git's own excludes, which may bring a hidden name back for ripgrep.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { searchWalk } from '../../src/gate/search-filter.ts';
import { tempDir } from '../helpers.ts';

const tmp = tempDir('svc-search-filter-');
afterAll(() => tmp.cleanup());

function repo(name: string): string {
  const root = join(tmp.dir, name);
  mkdirSync(join(root, '.git', 'info'), { recursive: true });
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  return root;
}

describe("rg's hidden files and git's excludes", () => {
  const rg = { skipsHidden: true, gitignore: true, configurable: true };

  it('leaves a hidden file out where nothing may bring it back', () => {
    const root = repo('plain');
    const home = join(tmp.dir, 'home-plain');
    const walk = searchWalk(root, rg, { HOME: home })!;
    expect(walk.reads(join(root, '.env'))).toBe(false);
    expect(walk.reads(join(root, 'src', 'a.ts'))).toBe(true);
    expect(walk.enters(join(root, 'build'))).toBe(false);
  });

  it.each([
    [
      "a ! line in the repository's info/exclude",
      (root: string) => writeFileSync(join(root, '.git', 'info', 'exclude'), '!.env\n'),
      '',
    ],
    ['a ! line in the global ignore file', () => undefined, 'ignore'],
    ["core.excludesFile named in the user's git config", () => undefined, 'config'],
  ] as const)('decides hidden files under %s', (_name, setUp, userFile) => {
    const root = repo(`case-${userFile || 'exclude'}`);
    const home = join(tmp.dir, `home-${userFile || 'exclude'}`);
    setUp(root);
    if (userFile) {
      mkdirSync(join(home, '.config', 'git'), { recursive: true });
      writeFileSync(
        join(home, '.config', 'git', userFile),
        userFile === 'ignore' ? '!.env\n' : '[core]\n\texcludesFile = ~/.gx\n',
      );
    }
    expect(searchWalk(root, rg, { HOME: home })!.reads(join(root, '.env'))).toBe(true);
  });

  it('takes a name starting with .. as a name inside the folder', () => {
    const root = repo('dots');
    const walk = searchWalk(root, { globs: ['*.ts'] }, {})!;
    expect(walk.reads(join(root, '..x', 'a.ts'))).toBe(true);
    expect(walk.reads(join(root, '..x', 'a.pem'))).toBe(false);
  });
});
