// Clean copies of files and folders (src/backend/redact.ts): the walk of the scanner, one token per
// value across the copy's files, files with nothing found copied byte for byte, binaries skipped,
// the source never written, and the copy's folder refused where it could land on the source or on
// files svc did not make. Then values put back from a mapping (src/backend/redact-mapping.ts).
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLEAN_COPY_MARKER, cleanName, redactPath } from '../../src/backend/redact.ts';
import { ServiceError } from '../../src/backend/errors.ts';
import { restoreValues, restoredName } from '../../src/backend/redact-mapping.ts';
import type { Match } from '../../src/scan/detect.ts';
import { redactText, TokenAllocator } from '../../src/scan/redact.ts';
import { tempDir } from '../helpers.ts';

const tmp = tempDir('svc-redact-');
/** Whether this file system lets a folder be made immutable (`chattr +i`: ext4, xfs, and as root). */
const immutableFolders = (() => {
  const probe = join(tmp.dir, 'immutable-probe');
  mkdirSync(probe);
  try {
    execFileSync('chattr', ['+i', probe], { stdio: 'ignore' });
    execFileSync('chattr', ['-i', probe], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();
afterAll(() => tmp.cleanup());

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const pick = (alphabet: string, n: number) =>
  Array.from({ length: n }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
/** Built at test time: the repository holds no credential-looking literal. */
const awsKey = `AKIA${pick(BASE32, 16)}`;
const email = `${pick('abcdefghij', 6)}.${pick('klmnopqrst', 7)}@${pick('uvwxyzabc', 6)}-mail.io`;

let folders = 0;
/** A project folder: a JSON and a .env with the same key, notes with nothing, a binary, an ignored file. */
function project(): string {
  const root = join(tmp.dir, `project-${++folders}`);
  mkdirSync(join(root, 'config'), { recursive: true });
  mkdirSync(join(root, 'build'), { recursive: true });
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  writeFileSync(
    join(root, 'config', 'app.json'),
    `${JSON.stringify({ owner: email, aws: { key: awsKey } }, null, 2)}\n`,
  );
  writeFileSync(join(root, '.env'), `AWS_ACCESS_KEY_ID=${awsKey}\nCONTACT="${email}"\n`, { mode: 0o600 });
  chmodSync(join(root, '.env'), 0o600);
  writeFileSync(join(root, 'notes.md'), '# nothing to hide\n');
  writeFileSync(join(root, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  writeFileSync(join(root, 'build', 'out.js'), `const key = "${awsKey}";\n`);
  return root;
}

const snapshot = (root: string) =>
  Object.fromEntries(
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => [join(e.parentPath, e.name), readFileSync(join(e.parentPath, e.name), 'utf8')]),
  );

describe('a clean copy of a folder', () => {
  it('replaces every value with one token across files and copies the rest as it is', async () => {
    const root = project();
    const before = snapshot(root);
    const { report, mapping } = await redactPath(undefined, root);
    expect(report.out).toBe(`${root}.clean`);
    expect(report.kind).toBe('folder');
    expect(report.files).toEqual([
      { file: '.env', status: 'redacted', values: 2 },
      { file: '.gitignore', status: 'copied', values: 0 },
      { file: 'notes.md', status: 'copied', values: 0 },
      { file: 'config/app.json', status: 'redacted', values: 2 },
    ]);
    expect(report.skipped).toEqual([{ file: 'logo.png', reason: 'binary' }]);
    expect(report.values_replaced).toBe(4);
    expect(report.tokens_by_type).toEqual({ AWS_ACCESS_KEY: 1, EMAIL: 1 });
    // The same key is one token in both files; the report holds no value, the mapping holds them.
    const env = readFileSync(join(report.out, '.env'), 'utf8');
    expect(env).toBe('AWS_ACCESS_KEY_ID=[AWS_ACCESS_KEY_1]\nCONTACT="[EMAIL_1]"\n');
    expect(JSON.parse(readFileSync(join(report.out, 'config', 'app.json'), 'utf8'))).toEqual({
      owner: '[EMAIL_1]',
      aws: { key: '[AWS_ACCESS_KEY_1]' },
    });
    expect(JSON.stringify(report)).not.toContain(awsKey);
    expect(JSON.stringify(report)).not.toContain(email);
    expect([...mapping]).toEqual([
      ['[AWS_ACCESS_KEY_1]', awsKey],
      ['[EMAIL_1]', email],
    ]);
    // A file keeps its mode; an ignored folder and a binary are not in the copy; the source is untouched.
    expect(statSync(join(report.out, '.env')).mode & 0o777).toBe(0o600);
    expect(readdirSync(report.out).sort()).toEqual(
      ['.env', '.gitignore', CLEAN_COPY_MARKER, 'config', 'notes.md'].sort(),
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('writes over a copy it made before, and nowhere that holds files it did not make', async () => {
    const root = project();
    await redactPath(undefined, root);
    await expect(redactPath(undefined, root)).resolves.toBeDefined();
    const foreign = join(tmp.dir, 'foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'mine.txt'), 'keep me\n');
    await expect(redactPath(undefined, root, { out: foreign })).rejects.toThrow(
      /holds files svc did not put/,
    );
    expect(readdirSync(foreign)).toEqual(['mine.txt']);
  });

  it('replaces a value found in one file wherever it stands in the others, and in the same file', async () => {
    const root = join(tmp.dir, `known-${++folders}`);
    mkdirSync(root);
    // Sixteen different characters: the entropy a generic secret needs, whatever the draw.
    const password = `k9${[...BASE32]
      .sort(() => Math.random() - 0.5)
      .slice(0, 14)
      .join('')}`;
    writeFileSync(join(root, '.env'), `DB_PASSWORD=${password}\n`);
    writeFileSync(join(root, 'people.csv'), 'id,name\n1,Wilhelmina Carter\n');
    // The detector finds neither here: no name says password, no label says name.
    const notes = `run mysql -p${password} then psql -W ${password}\nask Wilhelmina Carter, not Wilhelmina Carterson\n`;
    writeFileSync(join(root, 'a-notes.txt'), notes);
    const { report } = await redactPath(undefined, root);
    expect(readFileSync(join(report.out, 'a-notes.txt'), 'utf8')).toBe(
      'run mysql -p[SECRET_1] then psql -W [SECRET_1]\nask [PERSON_NAME_1], not Wilhelmina Carterson\n',
    );
    expect(report.files.find((f) => f.file === 'a-notes.txt')).toEqual({
      file: 'a-notes.txt',
      status: 'redacted',
      values: 3,
    });
    // A file alone: the values it holds, wherever they stand in it.
    const single = join(root, 'single.txt');
    writeFileSync(single, `DB_PASSWORD=${password}\nmysql -p${password}\n`);
    const alone = await redactPath(undefined, single, { out: join(tmp.dir, `known-out-${folders}`) });
    expect(readFileSync(alone.report.out, 'utf8')).toBe('DB_PASSWORD=[SECRET_1]\nmysql -p[SECRET_1]\n');
  });

  it('never hands out a token a file or a name of the copy holds as text, and putting values back leaves that text alone', async () => {
    const root = join(tmp.dir, `taken-${++folders}`);
    mkdirSync(root);
    const text = { 'a.txt': `mail ${email}\n`, 'b.md': 'a copy writes [EMAIL_1] for the first email\n' };
    for (const [name, body] of Object.entries(text)) writeFileSync(join(root, name), body);
    // A name of the copy, read after both files: its token is taken too.
    mkdirSync(join(root, '[EMAIL_2]'));
    writeFileSync(join(root, '[EMAIL_2]', 'c.yaml'), 'base: &EMAIL_3 {a: 1}\nnote: see *EMAIL_3\n');
    const { report, forms } = await redactPath(undefined, root);
    expect(readFileSync(join(report.out, 'a.txt'), 'utf8')).toBe('mail [EMAIL_4]\n');
    expect(readFileSync(join(report.out, 'b.md'), 'utf8')).toBe(text['b.md']);
    expect(report.tokens_by_type).toEqual({ EMAIL: 1 });
    expect(forms.map(([token]) => token)).toEqual(['[EMAIL_4]']);
    expect(restoreValues(text['b.md'], forms).text).toBe(text['b.md']);
    expect(restoreValues('mail [EMAIL_4]\n', forms).text).toBe(text['a.txt']);
  });

  it('one key written seven ways (LF, CRLF, CR, indented in YAML, escaped in JSON three ways) is one token, and each file comes back as it was', async () => {
    const root = join(tmp.dir, `key-${++folders}`);
    mkdirSync(root);
    const key = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    const files = {
      'lf.pem': key,
      'crlf.pem': key.replaceAll('\n', '\r\n'),
      'values.yaml': `tls:\n  key: |\n${key
        .trimEnd()
        .split('\n')
        .map((line) => `    ${line}`)
        .join('\n')}\n`,
      'sa.json': `${JSON.stringify({ private_key: key }, null, 2)}\n`,
      // Each of these is one line as well: only the mapping's names of files tell them apart.
      'windows/sa.json': `${JSON.stringify({ tls: key.replaceAll('\n', '\r\n') })}\n`,
      'old-mac.txt': `key:\r${key.replaceAll('\n', '\r')}`,
      'compact.json': `${JSON.stringify({ tls: key })}\n`,
    };
    mkdirSync(join(root, 'windows'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
    const { report, forms } = await redactPath(undefined, root);
    expect(report.tokens_by_type).toEqual({ PRIVATE_KEY: 1 });
    for (const [name, text] of Object.entries(files)) {
      const copy = readFileSync(join(report.out, name), 'utf8');
      expect(copy, name).toContain('[PRIVATE_KEY_1]');
      expect(restoreValues(copy, forms, name).text, name).toBe(text);
    }
    // A file the copy did not write gets the value as first written in one line.
    expect(restoreValues('"[PRIVATE_KEY_1]"', forms, 'elsewhere.json').text).toBe(
      JSON.stringify(key.trimEnd()),
    );
  });

  it('writes a UTF-16 file back in UTF-16, its byte order mark and line breaks kept', async () => {
    const root = join(tmp.dir, `utf16-${++folders}`);
    mkdirSync(root);
    const le = Buffer.from(`\ufeffkey=${awsKey}\r\nmail ${email}\r\n`, 'utf16le');
    writeFileSync(join(root, 'le.txt'), le);
    writeFileSync(join(root, 'be.txt'), Buffer.from(le).swap16());
    const { report } = await redactPath(undefined, root);
    const clean = '\ufeffkey=[AWS_ACCESS_KEY_1]\r\nmail [EMAIL_1]\r\n';
    expect(readFileSync(join(report.out, 'le.txt'))).toEqual(Buffer.from(clean, 'utf16le'));
    expect(readFileSync(join(report.out, 'be.txt'))).toEqual(Buffer.from(clean, 'utf16le').swap16());
  });

  it("never deletes a person's file put into a copy folder since: the next copy there is refused", async () => {
    const root = project();
    const out = join(tmp.dir, `into-${folders}`);
    // A copy of one file into the folder marks it as svc's, listing that file.
    await redactPath(undefined, join(root, 'notes.md'), { out });
    writeFileSync(join(out, 'mine.txt'), 'keep me\n');
    await expect(redactPath(undefined, root, { out })).rejects.toThrow(/holds files svc did not put/);
    expect(readFileSync(join(out, 'mine.txt'), 'utf8')).toBe('keep me\n');
    // Without the person's file, the folder is svc's and is replaced by the folder's copy.
    rmSync(join(out, 'mine.txt'));
    await redactPath(undefined, root, { out });
    expect(readdirSync(out)).toContain('config');
  });

  it('an --out that is a link to a folder gets the copy where the link leads; the link stays', async () => {
    const root = project();
    const real = join(tmp.dir, `real-out-${folders}`);
    mkdirSync(real);
    const link = join(tmp.dir, `link-out-${folders}`);
    symlinkSync(real, link);
    await redactPath(undefined, root, { out: link });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readdirSync(real)).toContain('config');
  });

  it('a name of one word from a name column is not looked for elsewhere; a whole name is', async () => {
    const root = join(tmp.dir, `names-${++folders}`);
    mkdirSync(root);
    writeFileSync(join(root, 'people.csv'), '\ufefffirst_name,full_name\nMadison,Wilhelmina Carter\n');
    writeFileSync(join(root, 'notes.txt'), 'Madison, Wisconsin; ask Wilhelmina Carter\n');
    const { report } = await redactPath(undefined, root);
    // The byte order mark is not part of the first header cell: its column is still read. (The
    // notes are copied first, so the whole name is met first.)
    expect(readFileSync(join(report.out, 'people.csv'), 'utf8')).toBe(
      '\ufefffirst_name,full_name\n[PERSON_NAME_2],[PERSON_NAME_1]\n',
    );
    expect(readFileSync(join(report.out, 'notes.txt'), 'utf8')).toBe(
      'Madison, Wisconsin; ask [PERSON_NAME_1]\n',
    );
  });

  it("copies a file under its name with the values in it replaced, folders' names too", async () => {
    const root = join(tmp.dir, `named-${++folders}`);
    mkdirSync(join(root, 'contacts', email), { recursive: true });
    writeFileSync(join(root, 'contacts', email, 'notes.txt'), `write to ${email}\n`);
    writeFileSync(join(root, `${awsKey}.txt`), 'nothing here\n');
    const { report } = await redactPath(undefined, root);
    expect(report.files.map((f) => f.file).sort()).toEqual([
      '[AWS_ACCESS_KEY_1].txt',
      'contacts/[EMAIL_1]/notes.txt',
    ]);
    expect(readFileSync(join(report.out, 'contacts', '[EMAIL_1]', 'notes.txt'), 'utf8')).toBe(
      'write to [EMAIL_1]\n',
    );
    expect(JSON.stringify(report)).not.toContain(email);
    expect(JSON.stringify(report)).not.toContain(awsKey);
    expect(readdirSync(report.out).join(' ')).not.toContain(awsKey);
  });

  it('refuses an empty path rather than copying the current folder', async () => {
    await expect(redactPath(undefined, '')).rejects.toThrow(/the path to copy is empty/);
  });

  it('replaces an earlier copy whole, and leaves it as it was when the new one fails part-way', async () => {
    const root = project();
    const first = await redactPath(undefined, root);
    const earlier = snapshot(first.report.out);
    // A file the source no longer has is not kept: its tokens were another copy's.
    rmSync(join(root, 'notes.md'));
    await redactPath(undefined, root);
    expect(readdirSync(first.report.out)).not.toContain('notes.md');
    await redactPath(undefined, root);
    const made = snapshot(first.report.out);
    // A file that fails to copy (the gate's question throws here) leaves the earlier copy whole, and
    // no half-made copy beside it.
    writeFileSync(join(root, 'notes.md'), `new ${email}\n`);
    const failing = redactPath(undefined, root, {
      admit: async (path) => {
        if (path.endsWith('app.json')) throw new Error('the disk went away');
        return true;
      },
    });
    await expect(failing).rejects.toThrow('the disk went away');
    expect(snapshot(first.report.out)).toEqual(made);
    expect(readdirSync(tmp.dir).filter((name) => name.includes('.svc-'))).toEqual([]);
    expect(Object.keys(earlier).length).toBe(Object.keys(made).length + 1);
  });

  it.skipIf(!immutableFolders)(
    'builds the copy inside its folder when nothing can be made beside it (a parent nobody may write, root included), and replaces an earlier copy there',
    async () => {
      const root = project();
      const parent = join(tmp.dir, `locked-${folders}`);
      const out = join(parent, 'copy');
      mkdirSync(out, { recursive: true });
      // Immutable: no entry can be added to it, not even by root, as to a read-only parent.
      execFileSync('chattr', ['+i', parent]);
      try {
        const first = await redactPath(undefined, root, { out });
        expect(first.report.out).toBe(out);
        expect(readFileSync(join(out, '.env'), 'utf8')).toContain('[AWS_ACCESS_KEY_1]');
        rmSync(join(root, 'notes.md'));
        writeFileSync(join(root, 'added.txt'), `mail ${email}\n`);
        await redactPath(undefined, root, { out });
        const entries = readdirSync(out);
        expect(entries).not.toContain('notes.md');
        expect(readFileSync(join(out, 'added.txt'), 'utf8')).toBe('mail [EMAIL_1]\n');
        // Nothing of the building is left: the copy's files and svc's marker only.
        expect(entries.filter((name) => name.startsWith('.svc-copy-'))).toEqual([]);
        expect(entries).toContain(CLEAN_COPY_MARKER);
        expect(readdirSync(parent)).toEqual(['copy']);
      } finally {
        execFileSync('chattr', ['-i', parent]);
      }
    },
  );

  it.each([
    ['the source itself', (root: string) => root],
    ['a folder inside the source', (root: string) => join(root, 'clean')],
  ])('refuses an --out that is %s, before anything is written', async (_name, outOf) => {
    const root = project();
    const before = snapshot(root);
    const refusal = await redactPath(undefined, root, { out: outOf(root) }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect((refusal as ServiceError).code).toBe('invalid_request');
    expect(snapshot(root)).toEqual(before);
  });

  it('refuses an --out that holds the source (an earlier copy folder the source was put in)', async () => {
    const root = project();
    writeFileSync(join(root, CLEAN_COPY_MARKER), '');
    const before = snapshot(root);
    await expect(redactPath(undefined, join(root, 'config'), { out: root })).rejects.toThrow(
      /is inside .*, which the copy would replace/,
    );
    expect(snapshot(root)).toEqual(before);
  });

  it('reads only the files `admit` lets it read; the others are neither read nor copied', async () => {
    const root = project();
    const asked: string[] = [];
    const { report } = await redactPath(undefined, root, {
      admit: async (path) => {
        asked.push(path);
        return !path.endsWith('.env');
      },
    });
    expect(asked).toContain(join(root, '.env'));
    expect(report.skipped).toContainEqual({ file: '.env', reason: 'protected' });
    expect(report.files.map((f) => f.file)).not.toContain('.env');
    expect(readdirSync(report.out)).not.toContain('.env');
  });

  it('holds the files `admit` answers "ask" for, and asks `confirm` once about them all after the rest', async () => {
    const root = project();
    const order: string[] = [];
    const held = (yes: boolean) => ({
      out: join(tmp.dir, `held-${++folders}`),
      admit: async (path: string): Promise<boolean | 'ask'> =>
        path.endsWith('.env') || path.endsWith('.json') ? 'ask' : true,
      confirm: async (files: readonly string[]) => {
        order.push(`asked ${[...files].sort().join(' ')}`);
        return yes;
      },
      onProgress: () => void order.push('read'),
    });
    const yes = await redactPath(undefined, root, held(true));
    expect(order.filter((o) => o.startsWith('asked'))).toEqual(['asked .env config/app.json']);
    // Every other file was read before the question, the held ones after it.
    expect(order.indexOf('asked .env config/app.json')).toBe(order.length - 3);
    expect(yes.report.skipped).toEqual([{ file: 'logo.png', reason: 'binary' }]);
    expect(readFileSync(join(yes.report.out, '.env'), 'utf8')).toContain('[AWS_ACCESS_KEY_1]');
    const no = await redactPath(undefined, root, held(false));
    expect(no.report.skipped).toEqual(
      expect.arrayContaining([
        { file: '.env', reason: 'protected' },
        { file: 'config/app.json', reason: 'protected' },
      ]),
    );
    expect(readdirSync(no.report.out)).not.toContain('.env');
    // A file's copy asks at once; no yes, no copy.
    const file = join(root, 'config', 'app.json');
    await expect(redactPath(undefined, file, held(false))).rejects.toThrow(/nothing was copied/);
    expect((await redactPath(undefined, file, held(true))).report.files).toHaveLength(1);
  });

  it('a folder of held files swapped for a link while the person is asked is not followed', async () => {
    const root = project();
    const outside = join(tmp.dir, `outside-${folders}`);
    mkdirSync(outside);
    writeFileSync(join(outside, 'app.json'), 'kept from agents\n');
    const { report } = await redactPath(undefined, root, {
      out: join(tmp.dir, `swapped-${folders}`),
      admit: async (path) => (path.includes('/config/') ? 'ask' : true),
      confirm: async () => {
        renameSync(join(root, 'config'), join(root, 'config.old'));
        symlinkSync(outside, join(root, 'config'));
        return true;
      },
    });
    expect(report.skipped).toContainEqual({ file: 'config/app.json', reason: 'changed' });
    expect(existsSync(join(report.out, 'config'))).toBe(false);
  });

  it('a file named alone, held for the person and swapped meanwhile for a link elsewhere, is changed and not copied', async () => {
    const root = project();
    const outside = join(tmp.dir, `outside-one-${folders}`);
    mkdirSync(outside);
    writeFileSync(join(outside, 'list.txt'), `kept from agents ${email}\n`);
    const file = join(root, 'notes.md');
    const { report } = await redactPath(undefined, file, {
      out: join(tmp.dir, `one-swapped-${folders}`),
      admit: async () => 'ask',
      confirm: async () => {
        rmSync(file);
        symlinkSync(join(outside, 'list.txt'), file);
        return true;
      },
    });
    expect(report.skipped).toEqual([{ file: 'notes.md', reason: 'changed' }]);
    expect(existsSync(report.out)).toBe(false);
  });

  it('copies a file whose name is as long as a file system allows', async () => {
    const root = join(tmp.dir, `long-${++folders}`);
    mkdirSync(root);
    const name = `${'L'.repeat(251)}.md`;
    writeFileSync(join(root, name), `mail ${email}\n`);
    const { report } = await redactPath(undefined, root, { out: join(tmp.dir, `long-out-${folders}`) });
    expect(readFileSync(join(report.out, name), 'utf8')).toBe('mail [EMAIL_1]\n');
  });

  it('a file only its clean copy may leave shares nothing with the others: a guess written elsewhere is not replaced, nor given its token', async () => {
    const root = join(tmp.dir, `guess-${++folders}`);
    mkdirSync(join(root, 'notes'), { recursive: true });
    mkdirSync(join(root, 'pub'));
    const secret = 'Wint3r!Harbor2291';
    writeFileSync(join(root, 'notes', 'pw.env'), `DB_PASSWORD=${secret}\n`);
    // What a reader who may write pub/ tries: the value itself, bare, then as a setting.
    writeFileSync(join(root, 'pub', 'guess.txt'), `${secret}\nWint3r!Harbor2290\n`);
    const clean = async (path: string) => (path.includes('/notes/') ? ('clean' as const) : true);
    const bare = await redactPath(undefined, root, {
      out: join(tmp.dir, `guess-out-${folders}`),
      admit: clean,
    });
    expect(readFileSync(join(bare.report.out, 'pub', 'guess.txt'), 'utf8')).toBe(
      `${secret}\nWint3r!Harbor2290\n`,
    );
    writeFileSync(join(root, 'pub', 'guess.env'), `DB_PASSWORD=${secret}\n`);
    const { report } = await redactPath(undefined, root, {
      out: join(tmp.dir, `guess-set-${folders}`),
      admit: clean,
    });
    const copy = (file: string) => readFileSync(join(report.out, file), 'utf8');
    const own = /DB_PASSWORD=(\[SECRET_\d+\])/.exec(copy('notes/pw.env'))![1];
    const guessed = /DB_PASSWORD=(\[SECRET_\d+\])/.exec(copy('pub/guess.env'))![1];
    expect(own).not.toBe(guessed);
    rmSync(join(root, 'pub', 'guess.env'));
    // A secret nobody could guess, found in a file the reader may read, is looked for in the
    // clean-only file too: its copy must not keep it where the file's own look missed it.
    const token = 'q7Wm2Zk9Lp4Xr8Tv3Nb6Yh1J';
    writeFileSync(join(root, 'pub', 'app.env'), `API_TOKEN=${token}\n`);
    writeFileSync(join(root, 'notes', 'log.txt'), `called with ${token} at noon\n`);
    const random = await redactPath(undefined, root, {
      out: join(tmp.dir, `guess-random-${folders}`),
      admit: clean,
    });
    expect(readFileSync(join(random.report.out, 'notes', 'log.txt'), 'utf8')).toMatch(
      /^called with \[SECRET_\d+\] at noon\n$/,
    );
    // And one found in another clean-only file, by its name there.
    rmSync(join(root, 'pub', 'app.env'));
    writeFileSync(join(root, 'notes', 'app.env'), `API_TOKEN=${token}\n`);
    const both = await redactPath(undefined, root, {
      out: join(tmp.dir, `guess-both-${folders}`),
      admit: clean,
    });
    expect(readFileSync(join(both.report.out, 'notes', 'log.txt'), 'utf8')).toMatch(
      /^called with \[SECRET_\d+\] at noon\n$/,
    );
    rmSync(join(root, 'notes', 'app.env'));
    rmSync(join(root, 'notes', 'log.txt'));
    // Files the reader may read whole still share their tokens, and their values are looked for.
    const open = await redactPath(undefined, root, { out: join(tmp.dir, `guess-open-${folders}`) });
    expect(readFileSync(join(open.report.out, 'pub', 'guess.txt'), 'utf8')).toBe(
      '[SECRET_1]\nWint3r!Harbor2290\n',
    );
  });

  it('says when there is nothing to copy', async () => {
    await expect(redactPath(undefined, join(tmp.dir, 'missing'))).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('a clean copy of a file', () => {
  it('goes beside it as name.clean.ext by default, or into --out under its own name', async () => {
    const root = project();
    const file = join(root, 'config', 'app.json');
    const beside = await redactPath(undefined, file);
    expect(beside.report.out).toBe(join(root, 'config', 'app.clean.json'));
    expect(beside.report.files).toEqual([{ file: 'app.json', status: 'redacted', values: 2 }]);
    const out = join(tmp.dir, `single-${folders}`);
    const into = await redactPath(undefined, file, { out });
    expect(into.report.out).toBe(join(out, 'app.json'));
    expect(readFileSync(into.report.out, 'utf8')).toBe(readFileSync(beside.report.out, 'utf8'));
  });

  it("never writes over a file beside it that it was not told to: the default copy's name is taken only when free", async () => {
    const root = project();
    const file = join(root, 'config', 'app.json');
    const mine = join(root, 'config', 'app.clean.json');
    writeFileSync(mine, 'my own notes, not a copy\n');
    const refused = await redactPath(undefined, file).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({ code: 'conflict' });
    expect((refused as ServiceError).message).toContain(`${mine} already exists`);
    expect(readFileSync(mine, 'utf8')).toBe('my own notes, not a copy\n');
    // Made again from the same file, the copy is the same: the file there is left as it is. Once the
    // file changed, the old copy is not what svc would write, and it is refused like any other file.
    rmSync(mine);
    const first = await redactPath(undefined, file);
    const copy = readFileSync(first.report.out, 'utf8');
    await expect(redactPath(undefined, file)).resolves.toBeDefined();
    expect(readFileSync(mine, 'utf8')).toBe(copy);
    writeFileSync(file, JSON.stringify({ changed: email }));
    await expect(redactPath(undefined, file)).rejects.toMatchObject({ code: 'conflict' });
    expect(readFileSync(mine, 'utf8')).toBe(copy);
  });

  it("never copies svc's own data dir, as source or as copy, and skips it inside a folder", async () => {
    const root = project();
    const dataDir = join(root, 'svc-data');
    mkdirSync(join(dataDir, 'keys'), { recursive: true });
    writeFileSync(join(dataDir, 'keys', 'data-columns.key'), `${awsKey}\n`);
    for (const [path, out] of [
      [join(dataDir, 'keys'), join(tmp.dir, `kc-${folders}`)],
      [join(dataDir, 'keys', 'data-columns.key'), undefined],
      [join(root, 'notes.md'), join(dataDir, 'copies')],
    ] as const) {
      await expect(redactPath(undefined, path, { out, dataDir })).rejects.toMatchObject({
        code: 'forbidden',
        message: expect.stringContaining("svc's own data dir"),
      });
    }
    expect(readdirSync(tmp.dir)).not.toContain(`kc-${folders}`);
    const { report } = await redactPath(undefined, root, { dataDir });
    expect(report.skipped).toContainEqual({ file: 'svc-data/keys/data-columns.key', reason: 'protected' });
    expect(report.files.map((f) => f.file)).not.toContain('svc-data/keys/data-columns.key');
  });

  it('refuses an --out that would put the copy on the file itself', async () => {
    const root = project();
    const file = join(root, 'notes.md');
    await expect(redactPath(undefined, file, { out: root })).rejects.toThrow(/replace .* itself/);
  });

  it('keeps the bytes of a file that is not UTF-8 where nothing was replaced', async () => {
    const root = join(tmp.dir, 'latin');
    mkdirSync(root);
    const text = Buffer.concat([
      Buffer.from('Gr'),
      Buffer.from([0xfc]),
      Buffer.from(`\u00df key=${awsKey} end\n`, 'latin1'),
    ]);
    writeFileSync(join(root, 'old.txt'), text);
    const { report } = await redactPath(undefined, join(root, 'old.txt'));
    const copy = readFileSync(report.out);
    expect(
      copy.equals(Buffer.from(text.toString('latin1').replace(awsKey, '[AWS_ACCESS_KEY_1]'), 'latin1')),
    ).toBe(true);
  });

  it.each([
    ['config.json', 'config.clean.json'],
    ['.env', '.env.clean'],
    ['notes', 'notes.clean'],
    ['archive.tar.gz', 'archive.tar.clean.gz'],
  ])('names the copy of %s %s', (name, clean) => {
    expect(cleanName(name)).toBe(clean);
  });
});

describe('putting values back', () => {
  it.each([
    ['config.clean.json', 'config.restored.json'],
    ['notes.txt', 'notes.restored.txt'],
    ['.env.clean', '.env.restored'],
    ['README', 'README.restored'],
  ])('names the file with values of %s %s', (name, restored) => {
    expect(restoredName(name)).toBe(restored);
  });

  it('gives an untouched copy back as it was, multi-line values included, and leaves unknown tokens', () => {
    const key = `-----BEGIN RSA PRIVATE KEY-----\n  ${pick(BASE32, 64)}\n  ${pick(BASE32, 64)}\n  -----END RSA PRIVATE KEY-----`;
    const text = `k: |\n  ${key}\nmail: ${email}\nagain: "${email}" [EMAIL_9]\n`;
    const tokens = new TokenAllocator();
    const copy = redactText(
      text,
      'a.yaml',
      [
        {
          rule: { type: 'PRIVATE_KEY' },
          start: text.indexOf(key),
          end: text.indexOf(key) + key.length,
          confidence: 1,
        },
        ...[text.indexOf(email), text.lastIndexOf(email)].map((start) => ({
          rule: { type: 'EMAIL' },
          start,
          end: start + email.length,
          confidence: 1,
        })),
      ] as unknown as Match[],
      tokens,
    ).text;
    expect(copy).toBe(
      `k: |\n  [PRIVATE_KEY_1]\n  \n  \n  \nmail: '[EMAIL_1]'\nagain: "[EMAIL_1]" [EMAIL_9]\n`,
    );
    const back = restoreValues(copy, tokens.mapping());
    expect(back).toEqual({
      text: `k: |\n  ${key}\nmail: '${email}'\nagain: "${email}" [EMAIL_9]\n`,
      count: 3,
    });
  });

  it('gives back a value whose edge was inside an escape with the escape as it was', () => {
    const text = `{"a": "x\\u0041${email}\\n", "b": "${email}"}`;
    const inside = text.indexOf('0041');
    const tokens = new TokenAllocator();
    const copy = redactText(
      text,
      'a.json',
      [
        { rule: { type: 'EMAIL' }, start: inside, end: inside + 4 + email.length + 1, confidence: 1 },
        {
          rule: { type: 'EMAIL' },
          start: text.lastIndexOf(email),
          end: text.lastIndexOf(email) + email.length,
          confidence: 1,
        },
      ] as unknown as Match[],
      tokens,
    ).text;
    // The escapes the values' edges fell in are replaced whole, and that is what the token stands for.
    expect(copy).toBe('{"a": "x[EMAIL_1]", "b": "[EMAIL_2]"}');
    expect(JSON.parse(copy)).toEqual({ a: 'x[EMAIL_1]', b: '[EMAIL_2]' });
    expect(restoreValues(copy, tokens.mapping()).text).toBe(text);
  });

  it('puts back a value a YAML anchor, alias or tag took as a bare name', () => {
    const text = 'password: !s3cr3tXq9\nb: &s3cr3tXq9 v\nc: *s3cr3tXq9\n';
    const tokens = new TokenAllocator();
    const at = (from: number) => text.indexOf('s3cr3tXq9', from);
    const matches = [at(0), at(20), at(35)].map((start) => ({
      rule: { type: 'SECRET' },
      start,
      end: start + 9,
      confidence: 1,
    })) as unknown as Match[];
    const copy = redactText(text, 'a.yaml', matches, tokens).text;
    expect(copy).toBe('password: !SECRET_1\nb: &SECRET_1 v\nc: *SECRET_1\n');
    expect(restoreValues(copy, tokens.forms()).text).toBe(text);
  });
});
