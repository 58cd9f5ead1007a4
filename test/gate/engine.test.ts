// The gate's rules engine, table by table: every outcome under every kind of condition, path
// patterns (anchors, negation, folders), time zones across a daylight saving change, daily limits,
// the most restrictive outcome across levels, tighten-only merging, and paths reached through
// `..` and symlinks.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Gate, loosenings, type Charge, type GateRequest } from '../../src/gate/engine.ts';
import { RuleSchema } from '../../src/gate/rules-schema.ts';
import type { Level, PlacedRule, Rule } from '../../src/gate/rules.ts';
import { builtinRules } from '../../src/gate/builtin.ts';
import { UnresolvablePath, pathForms } from '../../src/gate/resolve.ts';
import { decideSearch } from '../../src/gate/local.ts';
import { decideAsk } from '../../src/gate/check.ts';
import { tempDir } from '../helpers.ts';

const anchors = { projectRoot: '/work/shop', home: '/home/ann' };
const noUses = () => 0;
/** A weekday (Wednesday 2026-11-18) at 10:00 UTC. */
const WEDNESDAY_10_UTC = new Date('2026-11-18T10:00:00Z');

function placed(rule: Rule, level: Level = 'computer', id = 'r1'): PlacedRule {
  return { id, level, rule: RuleSchema.parse(rule) };
}

function decide(
  rules: PlacedRule[] | Rule,
  request: Partial<GateRequest> & { path?: string },
  usesSoFar: (c: Charge) => number = noUses,
) {
  const list = Array.isArray(rules) ? rules : [placed(rules)];
  const { path, ...rest } = request;
  return new Gate(list, anchors).decide(
    {
      action: 'read',
      paths: [path ?? '/work/shop/.env'],
      now: WEDNESDAY_10_UTC,
      ...rest,
    },
    usesSoFar,
  );
}

describe('every outcome under every kind of condition', () => {
  const effects = [
    ['deny', 'denied'],
    ['ask', 'ask'],
    ['redact', 'clean_copy'],
    ['limit', 'limited'],
    ['allow', 'allowed'],
  ] as const;
  // Each condition with a request it covers and one it does not.
  const conditions: [string, Partial<Rule>, Partial<GateRequest>, Partial<GateRequest>][] = [
    ['paths only', {}, {}, { paths: ['/work/shop/src/app.ts'] }],
    ['an action', { actions: ['read', 'search'] }, { action: 'search' }, { action: 'write' }],
    ['an agent', { who: ['support-bot'] }, { agent: 'Support-Bot' }, { agent: 'other-bot' }],
    ['a client', { who: ['cursor'] }, { client: 'cursor' }, { client: 'claude-code' }],
    ['anyone (*)', { who: ['*'] }, { client: 'codex' }, { paths: ['/work/shop/README.md'] }],
    ['a project by folder name', { project: 'shop' }, {}, {}],
    [
      'hours in a time zone',
      { when: { tz: 'Europe/Paris', hours: '09:00-17:00' } },
      { now: new Date('2026-11-18T10:00:00Z') },
      { now: new Date('2026-11-18T17:30:00Z') },
    ],
    [
      'weekdays',
      { when: { tz: 'UTC', weekdays: ['mon', 'tue', 'wed', 'thu', 'fri'] } },
      {},
      { now: new Date('2026-11-21T10:00:00Z') },
    ],
    [
      'dates',
      { when: { tz: 'UTC', from: '2026-11-01', until: '2026-11-30' } },
      {},
      { now: new Date('2026-12-01T00:00:00Z') },
    ],
  ];
  for (const [effect, outcome] of effects) {
    for (const [name, condition, covered, uncovered] of conditions) {
      it(`${effect} with ${name}: ${outcome} when covered, allowed by default when not`, () => {
        const rule = {
          effect,
          paths: ['.env'],
          ...(effect === 'limit' ? { limit_per_day: 3 } : {}),
          ...condition,
        } as Rule;
        const yes = decide(rule, covered);
        expect(yes.outcome).toBe(outcome);
        expect(yes.rule).toMatchObject({ id: 'r1', level: 'computer', effect });
        expect(yes.explanation).toContain('r1');
        const other = name === 'a project by folder name' ? { ...rule, project: 'elsewhere' } : rule;
        const no = decide(other, uncovered);
        expect(no.outcome).toBe('allowed');
        expect(no.rule).toBeNull();
        expect(no.explanation).toMatch(/^no rule covers/);
      });
    }
  }
});

describe('path patterns', () => {
  const cases: [string, string[], string, boolean][] = [
    ['a bare name matches at any depth of the project', ['.env'], '/work/shop/api/.env', true],
    ['… but not a longer name', ['.env'], '/work/shop/.env.example', false],
    ['./ anchors at the project root', ['./config.json'], '/work/shop/config.json', true],
    ['./ does not match deeper', ['./config.json'], '/work/shop/lib/config.json', false],
    ['a folder covers what is under it', ['secrets/'], '/work/shop/app/secrets/db/key.txt', true],
    ['a wildcard', ['*.pem'], '/work/shop/certs/site.pem', true],
    ['~/ is the home directory', ['~/.ssh/'], '/home/ann/.ssh/id_ed25519', true],
    ['an absolute path', ['/etc/shadow'], '/etc/shadow', true],
    ['an absolute folder', ['/srv/exports'], '/srv/exports/2026/customers.csv', true],
    [
      'matching ignores case, as a case-insensitive file system does',
      ['SECRETS/'],
      '/work/shop/Secrets/a.txt',
      true,
    ],
    ['a wildcard in the middle of a folder name', ['team-*/keys/'], '/work/shop/team-blue/keys/k.pem', true],
    ['** crosses folders', ['exports/**/customers.csv'], '/work/shop/exports/2026/11/customers.csv', true],
    ['a project pattern never matches outside the project', ['*.pem'], '/tmp/site.pem', false],
    [
      'a negation opens one file',
      ['secrets/', '!secrets/public.txt'],
      '/work/shop/secrets/public.txt',
      false,
    ],
    ['… and only that one', ['secrets/', '!secrets/public.txt'], '/work/shop/secrets/private.txt', true],
    [
      'the last pattern that matches decides',
      ['*.csv', '!exports/*.csv', 'exports/customers.csv'],
      '/work/shop/exports/customers.csv',
      true,
    ],
    [
      '… a later negation wins over an earlier pattern',
      ['*.csv', '!exports/*.csv'],
      '/work/shop/exports/orders.csv',
      false,
    ],
  ];
  it.each(cases)('%s', (_name, paths, path, covered) => {
    expect(decide({ effect: 'deny', paths }, { path }).outcome).toBe(covered ? 'denied' : 'allowed');
  });

  it('a request touching several paths is decided by the one a rule covers', () => {
    const decision = decide(
      { effect: 'deny', paths: ['.env'] },
      { paths: ['/work/shop/a.txt', '/work/shop/.env'] },
    );
    expect(decision).toMatchObject({ outcome: 'denied', path: '/work/shop/.env' });
  });
});

describe('time zones', () => {
  // Europe/Paris moves from UTC+1 to UTC+2 at 01:00 UTC on 2026-03-29.
  const office = {
    effect: 'deny',
    paths: ['.env'],
    when: { tz: 'Europe/Paris', hours: '09:00-17:00' },
  } as Rule;
  it.each([
    ['the day before the change, 08:30 UTC is 09:30 in Paris: inside', '2026-03-28T08:30:00Z', 'denied'],
    ['the day before the change, 07:30 UTC is 08:30 in Paris: outside', '2026-03-28T07:30:00Z', 'allowed'],
    ['the day of the change, 07:30 UTC is already 09:30 in Paris: inside', '2026-03-29T07:30:00Z', 'denied'],
    ['the day of the change, 15:30 UTC is 17:30 in Paris: outside', '2026-03-29T15:30:00Z', 'allowed'],
    ['back in October (UTC+1 again), 15:30 UTC is 16:30: inside', '2026-10-26T15:30:00Z', 'denied'],
  ])('%s', (_name, at, outcome) => {
    expect(decide(office, { now: new Date(at) }).outcome).toBe(outcome);
  });

  it('hours that wrap midnight cover the night and nothing of the day', () => {
    const night = {
      effect: 'ask',
      paths: ['.env'],
      when: { tz: 'Asia/Tokyo', hours: '22:00-06:00' },
    } as Rule;
    // 14:00 UTC is 23:00 in Tokyo; 03:00 UTC is 12:00.
    expect(decide(night, { now: new Date('2026-11-18T14:00:00Z') }).outcome).toBe('ask');
    expect(decide(night, { now: new Date('2026-11-18T20:00:00Z') }).outcome).toBe('ask');
    expect(decide(night, { now: new Date('2026-11-18T03:00:00Z') }).outcome).toBe('allowed');
  });

  it('weekdays are the local day: late Friday in New York is already Saturday in UTC', () => {
    const weekdays = {
      effect: 'deny',
      paths: ['.env'],
      when: { tz: 'America/New_York', weekdays: ['fri'] },
    } as Rule;
    expect(decide(weekdays, { now: new Date('2026-11-21T02:00:00Z') }).outcome).toBe('denied');
    expect(
      decide(
        { ...weekdays, when: { tz: 'UTC', weekdays: ['fri'] } },
        { now: new Date('2026-11-21T02:00:00Z') },
      ).outcome,
    ).toBe('allowed');
  });
});

describe('up to N uses a day', () => {
  const rule = {
    effect: 'limit',
    paths: ['exports/'],
    limit_per_day: 2,
    when: { tz: 'Pacific/Auckland' },
  } as Rule;
  const path = '/work/shop/exports/customers.csv';

  it('counts per rule, subject and local day; the last use is allowed, the next is not', () => {
    const uses = new Map<string, number>();
    const key = (c: Charge) => `${c.rule_id}|${c.subject}|${c.day}`;
    const use = (agent: string, now: Date) => {
      const decision = decide(rule, { path, agent, now }, (c) => uses.get(key(c)) ?? 0);
      for (const charge of decision.charges) uses.set(key(charge), (uses.get(key(charge)) ?? 0) + 1);
      return decision;
    };
    // 10:00 UTC on the 18th is 23:00 on the 18th in Auckland (UTC+13 in summer).
    const evening = new Date('2026-11-18T10:00:00Z');
    expect(use('bot', evening)).toMatchObject({
      outcome: 'limited',
      remaining: 1,
      charges: [{ day: '2026-11-18', subject: 'bot' }],
    });
    expect(use('bot', evening)).toMatchObject({ outcome: 'limited', remaining: 0 });
    const third = use('bot', evening);
    expect(third).toMatchObject({ outcome: 'denied', charges: [] });
    expect(third.explanation).toContain('has used all 2 uses allowed on 2026-11-18');
    expect(third.to_change).toMatch(/midnight in the rule's time zone/);
    // Another agent has its own count; an hour later it is the 19th in Auckland.
    expect(use('other', evening).outcome).toBe('limited');
    expect(use('bot', new Date('2026-11-18T11:00:00Z'))).toMatchObject({
      outcome: 'limited',
      charges: [{ day: '2026-11-19' }],
    });
  });

  it('without an agent or a client, uses are counted for anyone', () => {
    expect(decide(rule, { path }).charges).toEqual([{ rule_id: 'r1', subject: 'anyone', day: '2026-11-18' }]);
  });

  it('a stronger rule over the same path records no use', () => {
    const rules = [
      placed(rule, 'computer', 'limit'),
      placed({ effect: 'ask', paths: ['*.csv'] }, 'computer', 'ask'),
    ];
    expect(decide(rules, { path })).toMatchObject({ outcome: 'ask', charges: [] });
  });
});

describe('the most restrictive outcome wins, across levels', () => {
  const order = ['deny', 'ask', 'redact', 'limit', 'allow'] as const;
  it.each(order.flatMap((a, i) => order.slice(i + 1).map((b) => [a, b] as const)))(
    '%s beats %s, whichever level each is at',
    (strong, weak) => {
      const rule = (effect: (typeof order)[number]) =>
        ({ effect, paths: ['.env'], ...(effect === 'limit' ? { limit_per_day: 5 } : {}) }) as Rule;
      for (const [strongLevel, weakLevel] of [
        ['organization', 'computer'],
        ['computer', 'organization'],
      ] as const) {
        const decision = decide(
          [placed(rule(weak), weakLevel, 'weak'), placed(rule(strong), strongLevel, 'strong')],
          {},
        );
        expect(decision.rule).toMatchObject({ id: 'strong', effect: strong, level: strongLevel });
      }
    },
  );

  it('between two equally strict rules the higher level is named', () => {
    const decision = decide(
      [
        placed({ effect: 'deny', paths: ['.env'] }, 'computer', 'mine'),
        placed({ effect: 'deny', paths: ['.env'] }, 'organization', 'org'),
      ],
      {},
    );
    expect(decision.rule).toMatchObject({ id: 'org', level: 'organization' });
    expect(decision.to_change).toMatch(/organization owner/);
  });

  it("svc's data dir is denied by a built-in rule that an organization allow cannot open", () => {
    const rules = [
      ...builtinRules('/home/ann/.local/share/svc'),
      placed({ effect: 'allow', paths: ['/home/ann/'] }, 'organization', 'org'),
    ];
    const decision = decide(rules, { path: '/home/ann/.local/share/svc/keys/service-signing-ed25519.key' });
    expect(decision).toMatchObject({ outcome: 'denied', rule: { id: 'builtin:svc-data', level: 'builtin' } });
    expect(decision.to_change).toMatch(/^nothing can change this/);
  });

  it.each([
    ['read', 'clean/3f9a/customers.csv', 'allowed', null],
    ['write', 'clean/3f9a/customers.csv', 'denied', 'builtin:svc-clean-copies'],
    ['search', 'clean', 'denied', 'builtin:svc-clean-copies'],
    ['run', 'clean/3f9a/run.sh', 'denied', 'builtin:svc-clean-copies'],
    ['read', 'cleanup/notes.txt', 'denied', 'builtin:svc-data'],
    ['read', 'keys/clean/x.key', 'denied', 'builtin:svc-data'],
  ] as const)("the clean copies in svc's data dir: %s of %s is %s", (action, path, outcome, rule) => {
    const data = '/home/ann/.local/share/svc';
    const decision = decide(builtinRules(data), { action, path: `${data}/${path}` });
    expect(decision.outcome).toBe(outcome);
    expect(decision.rule?.id ?? null).toBe(rule);
  });
});

describe('tighten only', () => {
  const org = [
    placed({ effect: 'deny', paths: ['secrets/'], reason: 'customer keys' }, 'organization', 'org-secrets'),
    placed({ effect: 'ask', paths: ['*.csv'], actions: ['read'] }, 'organization', 'org-csv'),
  ];
  const check = (rule: Rule) =>
    loosenings(RuleSchema.parse(rule), 'computer', org, anchors).map((l) => l.rule.id);

  it.each([
    [
      'an allow on a file inside a denied folder is refused',
      { effect: 'allow', paths: ['secrets/public.txt'] },
      ['org-secrets'],
    ],
    [
      'an allow on the denied folder itself is refused',
      { effect: 'allow', paths: ['secrets/'] },
      ['org-secrets'],
    ],
    [
      'a redact (weaker than ask) on the asked files is refused',
      { effect: 'redact', paths: ['exports/*.csv'] },
      ['org-csv'],
    ],
    [
      'a limit on a wider pattern that covers the denied folder is refused',
      { effect: 'limit', paths: ['*'], limit_per_day: 9 },
      ['org-secrets', 'org-csv'],
    ],
  ] as [string, Rule, string[]][])('%s', (_name, rule, refused) => {
    expect(check(rule).sort()).toEqual(refused.sort());
  });

  it.each([
    ['a deny on the same folder tightens nothing away', { effect: 'deny', paths: ['secrets/'] }],
    ['a deny on the asked files tightens them', { effect: 'deny', paths: ['*.csv'] }],
    ['an allow elsewhere loosens nothing', { effect: 'allow', paths: ['docs/'] }],
    [
      'an allow for an action the organization rule does not name',
      { effect: 'allow', paths: ['*.csv'], actions: ['write'] },
    ],
  ] as [string, Rule][])('%s', (_name, rule) => {
    expect(check(rule)).toEqual([]);
  });

  it('an organization rule cannot loosen a built-in one either', () => {
    const refused = loosenings(
      RuleSchema.parse({ effect: 'allow', paths: ['~/.local/share/svc/keys/'] }),
      'organization',
      builtinRules('/home/ann/.local/share/svc'),
      anchors,
    );
    expect(refused.map((l) => l.rule.id)).toEqual(['builtin:svc-data']);
  });
});

describe('the rules format', () => {
  it.each([
    [
      'limit without limit_per_day',
      { effect: 'limit', paths: ['a'] },
      /limit_per_day goes with effect "limit"/,
    ],
    [
      'limit_per_day on a deny',
      { effect: 'deny', paths: ['a'], limit_per_day: 2 },
      /limit_per_day goes with/,
    ],
    [
      'an unknown time zone',
      { effect: 'deny', paths: ['a'], when: { tz: 'Mars/Olympus' } },
      /IANA time zone/,
    ],
    [
      'hours not as a range',
      { effect: 'deny', paths: ['a'], when: { tz: 'UTC', hours: '9-5' } },
      /HH:MM-HH:MM/,
    ],
    [
      'from after until',
      { effect: 'deny', paths: ['a'], when: { tz: 'UTC', from: '2026-12-01', until: '2026-11-01' } },
      /from must not be after until/,
    ],
    ['only negations', { effect: 'deny', paths: ['!a'] }, /not a negation/],
    ['an unknown field', { effect: 'deny', paths: ['a'], path: 'b' }, /Unrecognized key/i],
    ['an unknown action', { effect: 'deny', paths: ['a'], actions: ['delete'] }, /Invalid option/i],
  ])('refuses %s, saying what is wrong', (_name, rule, message) => {
    const parsed = RuleSchema.safeParse(rule);
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues.map((i) => i.message).join('; ')).toMatch(message);
  });
});

describe("the owner's rule files", () => {
  it.each([
    ['write', '/work/shop/.svc/rules.json', 'denied'],
    ['write', '/work/shop/.svc', 'denied'],
    ['write', '/work/shop/sub/project/.svc/rules.json', 'denied'],
    ['write', '/etc/svc-rules.json', 'denied'],
    ['read', '/work/shop/.svc/rules.json', 'allowed'],
    ['write', '/work/shop/.svcignore', 'allowed'],
  ] as const)('a %s of %s is %s', (action, path, outcome) => {
    const decision = decide(builtinRules('/home/ann/.local/share/svc', '/etc/svc-rules.json'), {
      action,
      path,
    });
    expect(decision.outcome).toBe(outcome);
    if (outcome === 'denied') expect(decision.rule?.id).toBe('builtin:svc-rule-files');
  });
});

describe('paths reached through .. and symlinks', () => {
  const dir = tempDir('svc-gate-');
  afterAll(() => dir.cleanup());
  const root = join(dir.dir, 'shop');
  mkdirSync(join(root, 'secrets'), { recursive: true });
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'secrets', 'key.pem'), 'not a real key');
  symlinkSync(join(root, 'secrets', 'key.pem'), join(root, 'src', 'innocent.txt'));
  symlinkSync(join(root, 'secrets'), join(root, 'src', 'vault'));
  const gate = () =>
    new Gate(
      [{ id: 'secrets', level: 'computer', rule: RuleSchema.parse({ effect: 'deny', paths: ['secrets/'] }) }],
      {
        projectRoot: root,
        home: '/home/ann',
      },
    );
  const forms = (path: string) => pathForms(path, { cwd: join(root, 'src'), home: '/home/ann' });

  it.each([
    ['a symlink to a protected file', 'innocent.txt'],
    ['a path through a symlinked folder', 'vault/key.pem'],
    ['a new file under a symlinked folder (a write)', 'vault/new.pem'],
    ['.. back into the protected folder', '../secrets/./key.pem'],
    ['an absolute path with ..', join(root, 'src', '..', 'secrets', 'key.pem')],
    ['/proc/self/cwd, the working folder of whoever opens it', '/proc/self/cwd/../secrets/key.pem'],
    ["a thread's working folder, /proc/self/task/TID/cwd", '/proc/self/task/4242/cwd/../secrets/key.pem'],
    [
      "a thread's root, /proc/self/task/TID/root",
      `/proc/self/task/4242/root${join(root, 'secrets', 'key.pem')}`,
    ],
    ['/proc/self/root', `/proc/self/root${join(root, 'secrets', 'key.pem')}`],
  ])('%s is decided as the protected file it reaches', (_name, path) => {
    const decision = gate().decide({ action: 'read', paths: forms(path), now: WEDNESDAY_10_UTC }, noUses);
    expect(decision.outcome).toBe('denied');
    expect(decision.path).toContain(join(root, 'secrets'));
  });

  it('.. after a symlinked folder goes up from where the link leads, as the system does', () => {
    // `vault/..` is `shop`, not `src`: the real form is the protected file itself.
    expect(forms('vault/../secrets/key.pem')).toContain(join(root, 'secrets', 'key.pem'));
  });

  it('a plain file next to them is not', () => {
    writeFileSync(join(root, 'src', 'app.ts'), '');
    expect(
      gate().decide({ action: 'read', paths: forms('app.ts'), now: WEDNESDAY_10_UTC }, noUses).outcome,
    ).toBe('allowed');
  });
});

describe('a rule written through a symlink', () => {
  const dir = tempDir('svc-linked-rule-');
  afterAll(() => dir.cleanup());
  // A home folder that is a link (as `/tmp` is on some systems): a rule on `~/secrets/` covers
  // the folder where it really is, whichever way a path names it.
  const realHome = join(dir.dir, 'real-home');
  const home = join(dir.dir, 'home');
  mkdirSync(join(realHome, 'secrets'), { recursive: true });
  writeFileSync(join(realHome, 'secrets', 'key.txt'), 'not a real key');
  symlinkSync(realHome, home);
  const gate = new Gate(
    [
      {
        id: 'home-secrets',
        level: 'computer',
        rule: RuleSchema.parse({ effect: 'deny', paths: ['~/secrets/'] }),
      },
    ],
    { projectRoot: join(dir.dir, 'project'), home },
  );

  it.each([
    ['the path through the link', join(home, 'secrets', 'key.txt')],
    ['the real path', join(realHome, 'secrets', 'key.txt')],
  ])('covers %s', (_name, path) => {
    const decision = gate.decide(
      { action: 'read', paths: pathForms(path, { cwd: dir.dir, home }), now: WEDNESDAY_10_UTC },
      noUses,
    );
    expect(decision.outcome).toBe('denied');
  });
});

describe('paths the gate cannot resolve, and names outside ASCII', () => {
  const dir = tempDir('svc-unresolvable-');
  afterAll(() => dir.cleanup());
  const root = join(dir.dir, 'shop');
  // A real path past PATH_MAX (4,096 bytes) that a short link reaches: the system opens the link,
  // realpath cannot say where it leads. Made a folder at a time, as no call takes the whole path.
  const folders = [...Array.from({ length: 16 }, (_, i) => `${i}`.padStart(250, 'd')), 'e'.repeat(60)];
  mkdirSync(root, { recursive: true });
  execFileSync('bash', [
    '-c',
    'cd "$1" && shift && for f in "$@"; do mkdir "$f" && cd "$f"; done && mkdir secrets && echo x > secrets/k',
    '-',
    root,
    ...folders,
  ]);
  symlinkSync(`${folders.join('/')}/secrets`, join(root, 'short'));
  const gate = new Gate(
    [
      {
        id: 'r',
        level: 'computer',
        rule: RuleSchema.parse({ effect: 'deny', paths: ['secrets/', 'κωδικος*'] }),
      },
    ],
    { projectRoot: root, home: '/home/ann' },
  );

  it('refuses to name a file reached through a link it cannot resolve', () => {
    expect(() => pathForms('short/k', { cwd: root, home: '/home/ann' })).toThrow(UnresolvablePath);
  });

  it('asks about a search that meets such a link', () => {
    mkdirSync(join(root, 'src'), { recursive: true });
    symlinkSync(join('..', 'short'), join(root, 'src', 'vendor'));
    const decision = decideSearch(
      gate,
      { action: 'search', now: WEDNESDAY_10_UTC },
      join(root, 'src'),
      noUses,
      '/home/ann',
    );
    expect(decision.outcome).toBe('ask');
    expect(decision.explanation).toMatch(/cannot be resolved/);
  });

  it('covers a name whose case differs outside ASCII (Σ for ς)', () => {
    writeFileSync(join(root, 'ΚΩΔΙΚΟΣΑ'), 'x');
    const paths = pathForms('ΚΩΔΙΚΟΣΑ', { cwd: root, home: '/home/ann' });
    expect(gate.decide({ action: 'read', paths, now: WEDNESDAY_10_UTC }, noUses).outcome).toBe('denied');
  });
});

describe('a project inside another', () => {
  const dir = tempDir('svc-nested-');
  afterAll(() => dir.cleanup());
  const outer = join(dir.dir, 'shop');
  const inner = join(outer, 'src');
  mkdirSync(join(outer, '.svc'), { recursive: true });
  mkdirSync(join(outer, 'secrets'), { recursive: true });
  // The inner project is what an agent makes with `mkdir src/.git`.
  mkdirSync(join(inner, '.git'), { recursive: true });
  writeFileSync(
    join(outer, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'deny', paths: ['./.env', 'secrets/'] }]),
  );
  writeFileSync(join(outer, '.env'), 'X=1');
  writeFileSync(join(outer, 'secrets', 'key.txt'), 'x');
  const setting = { dataDir: join(dir.dir, 'svc'), home: join(dir.dir, 'home'), env: {}, organization: [] };
  const read = (path: string) =>
    decideAsk(
      setting,
      { kind: 'paths', action: 'read', paths: [path] },
      { cwd: inner },
      WEDNESDAY_10_UTC,
      noUses,
    );

  it.each([
    ['the outer root file', '../.env'],
    ['the outer protected folder', '../secrets/key.txt'],
  ])("keeps the outer project's rules, anchored at its own root: %s", async (_name, path) => {
    const decision = await read(path);
    expect(decision.outcome).toBe('denied');
    expect(decision.rule?.id).toBe(`${join(outer, '.svc', 'rules.json')}#1`);
  });

  it("does not read the outer project's root-anchored paths as the inner one's", async () => {
    writeFileSync(join(inner, '.env'), 'Y=2');
    expect((await read('.env')).outcome).toBe('allowed');
  });
});

describe('rules written for every project, over another project than the asker’s', () => {
  const dir = tempDir('svc-everywhere-');
  afterAll(() => dir.cleanup());
  const shop = join(dir.dir, 'shop');
  const blog = join(dir.dir, 'blog');
  const loose = join(dir.dir, 'loose');
  // The blog has no rule file of its own: only the rules for every project cover it.
  for (const folder of [join(shop, '.git'), join(blog, '.git'), loose])
    mkdirSync(folder, { recursive: true });
  for (const file of [join(shop, '.env'), join(blog, '.env'), join(blog, 'notes.md'), join(loose, '.env')])
    writeFileSync(file, 'X=1');
  const organization = [
    placed({ effect: 'deny', paths: ['.env'] }, 'organization', 'org-env'),
    placed({ effect: 'ask', paths: ['./notes.md'], project: blog }, 'organization', 'org-blog'),
    placed({ effect: 'limit', limit_per_day: 5, paths: ['*.md'] }, 'organization', 'org-limit'),
  ];
  const setting = { dataDir: join(dir.dir, 'svc'), home: join(dir.dir, 'home'), env: {}, organization };
  const read = (paths: string[], cwd = shop) =>
    decideAsk(setting, { kind: 'paths', action: 'read', paths }, { cwd }, WEDNESDAY_10_UTC, noUses);

  it('an organization rule holds in each project an agent reaches, whatever folder it works in', async () => {
    for (const cwd of [shop, loose, dir.dir]) {
      const decision = await read([join(blog, '.env')], cwd);
      expect(decision.outcome, cwd).toBe('denied');
      expect(decision.rule?.id).toBe('org-env');
    }
    // Its own project's rules too, and the asker's project keeps them.
    expect((await read([join(blog, 'notes.md')])).outcome).toBe('ask');
    expect((await read([join(shop, '.env')])).outcome).toBe('denied');
  });

  it('a rule placed at two projects is one rule: one use of a limit for a call over both', async () => {
    writeFileSync(join(shop, 'a.md'), '');
    const decision = await read([join(shop, 'a.md'), join(blog, 'b.md')], loose);
    expect(decision.outcome).toBe('limited');
    expect(decision.charges).toHaveLength(1);
  });

  it('a folder in no project is left as it was: project patterns do not reach it', async () => {
    expect((await read([join(loose, '.env')])).outcome).toBe('allowed');
  });
});

describe('what an agent reaches across projects by a search, a link or a project of its own making', () => {
  const dir = tempDir('svc-reach-');
  afterAll(() => dir.cleanup());
  const root = dir.dir;
  const [alpha, beta, gamma, rho] = ['alpha', 'beta', 'gamma', 'rho'].map((name) => join(root, name));
  for (const project of [alpha, beta, gamma, rho]) mkdirSync(join(project!, '.git'), { recursive: true });
  writeFileSync(join(beta!, '.env'), 'SECRET=b');
  // gamma's own rule file protects its file, for anyone anywhere.
  mkdirSync(join(gamma!, '.svc'));
  writeFileSync(
    join(gamma!, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'deny', paths: ['secret.txt'] }]),
  );
  writeFileSync(join(gamma!, 'secret.txt'), 'topsecret');
  mkdirSync(join(rho!, 'config'));
  writeFileSync(join(rho!, 'config', 'prod.json'), '{}');
  writeFileSync(join(alpha!, 'a.lim'), '');
  writeFileSync(join(alpha!, 'b.lim'), '');
  symlinkSync(beta!, join(alpha!, 'linked'));
  const organization = [
    placed({ effect: 'deny', paths: ['.env'] }, 'organization', 'org-env'),
    placed({ effect: 'deny', paths: ['config/prod.json'] }, 'organization', 'org-prod'),
    placed({ effect: 'limit', limit_per_day: 5, paths: ['*.lim'] }, 'organization', 'org-lim'),
  ];
  const setting = { dataDir: join(root, 'svc'), home: join(root, 'home'), env: {}, organization };
  const decide = (ask: Parameters<typeof decideAsk>[1], cwd = alpha!) =>
    decideAsk(setting, ask, { cwd }, WEDNESDAY_10_UTC, noUses);

  it('a search over a folder holding other projects is decided under their rules and the ones for every project', async () => {
    expect((await decide({ kind: 'folder', action: 'search', folder: root })).outcome).toBe('denied');
    expect((await decide({ kind: 'shell', command: `grep -r SECRET ${root}` })).outcome).toBe('denied');
    // gamma's own rule file, reached by a search from elsewhere.
    writeFileSync(join(beta!, '.env'), 'SECRET=b');
    const onlyGamma = join(root, 'only-gamma');
    mkdirSync(onlyGamma);
    symlinkSync(gamma!, join(onlyGamma, 'g'));
    const searched = await decide({ kind: 'shell', command: `grep -R topsecret ${onlyGamma}` });
    expect(searched.outcome).toBe('denied');
    expect(searched.rule?.id).toBe(`${join(gamma!, '.svc', 'rules.json')}#1`);
  });

  it('a linked folder is searched where it leads', async () => {
    const decision = await decide({ kind: 'shell', command: 'grep -R SECRET .' });
    expect(decision.outcome).toBe('denied');
    expect(decision.rule?.id).toBe('org-env');
  });

  it('a project made inside another keeps the outer one around it', async () => {
    mkdirSync(join(rho!, 'config', '.git'));
    const read = { kind: 'paths', action: 'read', paths: [join(rho!, 'config', 'prod.json')] } as const;
    for (const cwd of [alpha!, join(rho!, 'config'), root]) {
      const decision = await decide({ ...read, paths: [...read.paths] }, cwd);
      expect(decision.outcome, cwd).toBe('denied');
      expect(decision.rule?.id).toBe('org-prod');
    }
  });

  it("a search tool's folder named through a link is decided where it leads too", async () => {
    symlinkSync(join(rho!, 'x', '..', 'config'), join(alpha!, 'cfg'));
    mkdirSync(join(rho!, 'x'));
    const decision = await decide({ kind: 'folder', action: 'search', folder: 'cfg' });
    expect(decision.outcome).toBe('denied');
    expect(decision.rule?.id).toBe('org-prod');
  });

  it('a search counts a use of every limit rule it reaches, once each', async () => {
    const counted = join(root, 'counted');
    mkdirSync(join(counted, 'logs'), { recursive: true });
    mkdirSync(join(counted, 'data'));
    writeFileSync(join(counted, 'logs', 'a'), '');
    writeFileSync(join(counted, 'data', 'b'), '');
    const limits = {
      ...setting,
      organization: [
        placed(
          { effect: 'limit', limit_per_day: 1, paths: [`${counted}/logs/`] },
          'organization',
          'lim-logs',
        ),
        placed(
          { effect: 'limit', limit_per_day: 1, paths: [`${counted}/data/`] },
          'organization',
          'lim-data',
        ),
      ],
    };
    const decision = await decideAsk(
      limits,
      { kind: 'folder', action: 'search', folder: counted },
      { cwd: counted },
      WEDNESDAY_10_UTC,
      noUses,
    );
    expect(decision.outcome).toBe('limited');
    expect(decision.charges.map((c) => c.rule_id).sort()).toEqual(['lim-data', 'lim-logs']);
  });

  it('what git runs by itself is written only with the person\u2019s yes: hooks and settings', async () => {
    for (const path of [join(alpha!, '.git', 'hooks', 'pre-commit'), join(alpha!, '.git', 'config')]) {
      const write = await decide({ kind: 'paths', action: 'write', paths: [path] });
      expect(write.outcome, path).toBe('ask');
      expect(write.rule?.id).toBe('builtin:git-runs');
    }
    const shell = await decide({ kind: 'shell', command: "printf 'cat .env' > .git/hooks/pre-commit" });
    expect(shell.outcome).toBe('ask');
    // Reading them, and writing elsewhere in .git, is the project's own business.
    expect(
      (await decide({ kind: 'paths', action: 'read', paths: [join(alpha!, '.git', 'config')] })).outcome,
    ).toBe('allowed');
  });

  it("git's paths are decided where git takes them: a revision's from the repository's root, -C through links", async () => {
    mkdirSync(join(gamma!, 'sub'), { recursive: true });
    // `REV:path` is from the root of the repository, whatever folder git runs in.
    const delta = join(root, 'delta');
    mkdirSync(join(delta, '.git'), { recursive: true });
    mkdirSync(join(delta, 'config'));
    const fromSub = await decide(
      { kind: 'shell', command: 'cd config && git show HEAD:config/prod.json' },
      delta,
    );
    expect(fromSub.outcome).toBe('denied');
    expect(fromSub.rule?.id).toBe('org-prod');
    // `-C` follows a link, then `..` goes up from where it leads, as git's own chdir does.
    symlinkSync(join(gamma!, 'sub'), join(alpha!, 'gsub'));
    const linked = await decide({ kind: 'shell', command: 'git -C gsub/.. show HEAD:secret.txt' });
    expect(linked.outcome).toBe('denied');
    expect(linked.rule?.id).toBe(`${join(gamma!, '.svc', 'rules.json')}#1`);
    // So does `cd -P`; a plain `cd` takes `..` as written, as the shell does.
    const physically = await decide({ kind: 'shell', command: 'cd -P gsub/.. && cat secret.txt' });
    expect(physically.outcome).toBe('denied');
  });

  it('one use of a limit for a command line, however many of its files the rule covers', async () => {
    const decision = await decide({ kind: 'shell', command: `cat a.lim b.lim ${join(alpha!, 'a.lim')}` });
    expect(decision.outcome).toBe('limited');
    expect(decision.charges).toHaveLength(1);
  });
});

describe('a rule of this computer that would loosen one above it', () => {
  const dir = tempDir('svc-loosen-');
  afterAll(() => dir.cleanup());
  const shop = join(dir.dir, 'shop');
  mkdirSync(join(shop, '.svc'), { recursive: true });
  mkdirSync(join(shop, 'config'));
  writeFileSync(
    join(shop, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'limit', limit_per_day: 3, paths: ['config/'] }]),
  );
  const organization = [
    placed({ effect: 'ask', paths: ['./config/settings.json'] }, 'organization', 'org-ask'),
  ];
  const setting = { dataDir: join(dir.dir, 'svc'), home: join(dir.dir, 'home'), env: {}, organization };
  const read = (file: string) =>
    decideAsk(
      setting,
      { kind: 'paths', action: 'read', paths: [join(shop, 'config', file)] },
      { cwd: shop },
      WEDNESDAY_10_UTC,
      noUses,
    );

  it('opens nothing the rule above protects, and still holds where that rule does not reach', async () => {
    expect((await read('settings.json')).outcome).toBe('ask');
    expect((await read('other.json')).outcome).toBe('limited');
  });
});
