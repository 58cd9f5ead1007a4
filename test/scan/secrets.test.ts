// The secret rules: every rule finds a value of its documented format and leaves a near miss;
// placeholders, documented examples and test values in test files are no finding; a finding never
// carries the value; the rules run in one pass over a large file without a runaway expression.
import { describe, expect, it } from 'vitest';
import { describe as describeMatches, detector, type DetectionRule } from '../../src/scan/detect.ts';
import { base62, crc32 } from '../../src/scan/secrets/checksum.ts';
import {
  GENERIC_RULES,
  SECRET_FAMILIES,
  SECRET_RULES,
  isPlaceholder,
  isTestFile,
} from '../../src/scan/secrets/index.ts';
import { ALPHABETS, SAMPLES, SAMPLE_FILES, SLOT, sampleFiller, seeded } from './secret-samples.ts';
import { DETECTION_RULES } from '../../src/scan/rules.ts';
import { PII_RULES } from '../../src/scan/pii/index.ts';

const { pick, fill } = sampleFiller(seeded(20240601));

/** The positive with its last slot one character short. */
function shortened(template: string): string {
  const slots = [...template.matchAll(SLOT)];
  const last = slots.at(-1)!;
  return `${template.slice(0, last.index)}{${last[1]}${Number(last[2]) - 1}}${template.slice(last.index + last[0].length)}`;
}

function samplesOf(id: string): { positive: string; nearMiss: string } {
  const sample = SAMPLES[id] ?? ['', ''];
  const [positive, nearMiss] = typeof sample === 'string' ? [sample, shortened(sample)] : sample;
  return { positive: fill(positive), nearMiss: fill(nearMiss) };
}

const PROVIDER_RULES = Object.values(SECRET_FAMILIES).flat();
const everything = detector(SECRET_RULES);

describe('secret rules inventory', () => {
  it('has at least 150 provider-specific rules, apart from the generic ones', () => {
    expect(PROVIDER_RULES.length).toBeGreaterThanOrEqual(150);
    expect(SECRET_RULES.length).toBe(PROVIDER_RULES.length + GENERIC_RULES.length);
  });

  it('has a true positive and a near miss for every rule, and no sample for a rule that is gone', () => {
    const ids = SECRET_RULES.map((r) => r.id);
    expect(Object.keys(SAMPLES).filter((id) => !ids.includes(id))).toEqual([]);
    for (const id of ids) {
      const sample = SAMPLES[id];
      expect(sample, `${id} has no samples`).toBeDefined();
      if (typeof sample === 'string') expect(sample, `${id} has no slot to shorten`).toMatch(SLOT);
    }
  });

  it.each(SECRET_RULES.map((r) => [r.id, r] as const))('%s is well formed', (_id, rule: DetectionRule) => {
    expect(rule.category).toBe('secret');
    expect(rule.id).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    expect(rule.type).toMatch(/^[A-Z0-9_]+$/);
    expect(rule.pattern.global).toBe(true);
    // Only a rule bound to files by their name may run on their whole text.
    if (rule.files) expect(SAMPLE_FILES[rule.id], `${rule.id} has no sample file`).toMatch(rule.files);
    else expect(rule.keywords.length).toBeGreaterThan(0);
    for (const keyword of rule.keywords) expect(keyword).toBe(keyword.toLowerCase());
    expect(rule.confidence).toBeGreaterThan(0);
    expect(rule.confidence).toBeLessThanOrEqual(1);
    expect(rule.check).toBeTypeOf('function');
  });
});

describe.each(SECRET_RULES.map((r) => [r.id, r] as const))('%s', (id, rule: DetectionRule) => {
  const alone = detector([rule]);
  // A rule that only finds encoded values is named by the rule that finds a secret in what they
  // encode: it is tried with every rule, and its matches are the ones carrying what they decode.
  const finder = rule.decodedOnly ? everything : alone;
  const { positive, nearMiss } = samplesOf(id);
  const file = SAMPLE_FILES[id] ?? '';

  it('finds its true positive, and its keyword is on the line', () => {
    const found = finder.matches(positive, file);
    expect(found.length, positive).toBeGreaterThan(0);
    if (rule.decodedOnly) expect(found.every((m) => m.decoded !== undefined)).toBe(true);
    const lower = positive.toLowerCase();
    if (rule.keywords.length > 0) expect(rule.keywords.some((k) => lower.includes(k))).toBe(true);
  });

  it.runIf(rule.files)('finds nothing in a file of another name', () => {
    expect(finder.matches(positive, 'notes/readme.txt')).toEqual([]);
    expect(finder.matches(positive)).toEqual([]);
  });

  it('is the rule that wins its true positive among all the rules', () => {
    const found = everything.matches(positive, file);
    if (rule.decodedOnly)
      expect(
        found.filter((m) => m.decoded !== undefined),
        positive,
      ).not.toEqual([]);
    else
      expect(
        found.map((m) => m.rule.id),
        positive,
      ).toContain(id);
  });

  it('leaves its near miss', () => {
    expect(finder.matches(nearMiss, file), nearMiss).toEqual([]);
  });

  it('never puts the value in a finding, and shows no more of it than its documented prefix', () => {
    const matches = finder.matches(positive, file);
    const findings = describeMatches(positive, matches, (type) => `fp:${type}`);
    for (const [i, finding] of findings.entries()) {
      const value = positive.slice(matches[i]!.start, matches[i]!.end);
      expect(JSON.stringify(finding)).not.toContain(value);
      const shown = /^[^*]*/.exec(finding.preview)![0];
      const shows = matches[i]!.decoded === undefined ? (matches[i]!.rule.shows ?? 0) : 0;
      expect(shown.length, finding.preview).toBeLessThanOrEqual(Math.min(shows, 4));
      expect(value.startsWith(shown)).toBe(true);
    }
  });
});

describe('isPlaceholder', () => {
  it.each([
    'your-api-key-here',
    'YOUR_API_KEY',
    'changeme',
    'example-token-value',
    'xxxxxxxxxxxxxxxxxxxx',
    'sk_live_xxxxxxxxxxxxxxxxxxxxxxxx',
    '${API_KEY}',
    '{{ api_key }}',
    '<your-token>',
    '%API_KEY%',
    '$API_KEY',
    'process.env.API_KEY',
    'aaaaaaaaaaaaaaaaaaaaaaaa',
    'ghp_000000000000000000000000000000000000',
    'abcdefghijklmnop',
    '1234567890123456',
    '***',
    '********',
    'REDACTED',
    'AKIAIOSFODNN7EXAMPLE',
    'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    'password',
    'sk-ant-api03-...',
  ])('%s is a placeholder', (value) => {
    expect(isPlaceholder(value)).toBe(true);
  });

  it.each(['q7Zr2VbN9xKp4LmW8sTd3FhJ', 'Xk29fLq0ZpW7sN3vB8', 'hunter2-Blue-Falcon'])('%s is not', (value) => {
    expect(isPlaceholder(value)).toBe(false);
  });

  it.each([
    ['AWS documentation key id', 'aws_access_key_id = AKIAIOSFODNN7EXAMPLE'],
    ['AWS documentation secret', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'],
    ['a template variable', 'api_key: "${API_KEY}"'],
    ['a mustache variable', 'password: "{{ db_password }}"'],
    ['an angle-bracket stand-in', 'OPENAI_API_KEY=<your-openai-key>'],
    ['x-ed out', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
    ['an ellipsis', 'ANTHROPIC_API_KEY=sk-ant-api03-...'],
    ['a stand-in phrase', 'api_key = "your-api-key-here"'],
    ['stars', 'password: "********"'],
    ['a Windows variable', 'set TOKEN=%GITHUB_TOKEN%'],
    ['a reference to the environment', 'const secret = process.env.CLIENT_SECRET_VALUE;'],
    ['an identifier', 'const token = this.sessionToken;'],
    ['a TypeScript type', 'password: string;'],
    ['a local default', 'DATABASE_URL=postgres://postgres:postgres@localhost:5432/app'],
  ])('%s is no finding', (_name, line) => {
    expect(everything.matches(line).map((m) => m.rule.id)).toEqual([]);
  });
});

describe('test values in test files', () => {
  it('reads paths as test files', () => {
    for (const file of [
      'test/a.ts',
      'src/a.test.ts',
      'pkg/a_test.go'.replace('_test', '.test'),
      'tests/x.py',
      '__tests__/a.js',
      'fixtures/a.json',
      'test_app.py',
    ])
      expect(isTestFile(file), file).toBe(true);
    for (const file of ['src/a.ts', 'latest/a.ts', 'contest.ts']) expect(isTestFile(file), file).toBe(false);
  });

  it('drops a value that says test in a test file, and keeps it elsewhere', () => {
    const line = fill('STRIPE_KEY=sk_test_{a24}');
    expect(everything.matches(line, 'test/payments.test.ts')).toEqual([]);
    expect(everything.matches(line, 'src/payments.ts').map((m) => m.rule.id)).toEqual([
      'stripe-test-secret-key',
    ]);
  });
});

describe('GitHub and npm checksums', () => {
  const body30 = () => pick(ALPHABETS.a!, 30);

  it('raises the confidence of a token whose CRC-32 holds', () => {
    const random30 = body30();
    const valid = `ghp_${random30}${base62(crc32(random30), 6)}`;
    const [match] = everything.matches(`GITHUB_TOKEN=${valid}`);
    expect(match?.rule.id).toBe('github-personal-access-token');
    expect(match?.confidence).toBe(0.99);
    const [unchecked] = everything.matches(`GITHUB_TOKEN=ghp_${random30}${pick(ALPHABETS.a!, 6)}`);
    expect(unchecked?.confidence).toBe(0.9);
  });

  it('checks npm tokens the same way', () => {
    const random30 = body30();
    const [match] = everything.matches(`npm_${random30}${base62(crc32(random30), 6)}`);
    expect(match?.rule.id).toBe('npm-access-token');
    expect(match?.confidence).toBe(0.99);
  });

  it('computes the standard CRC-32', () => {
    // The check value of CRC-32/ISO-HDLC for "123456789" (the catalogue's test vector).
    expect(crc32('123456789')).toBe(0xcbf43926);
  });
});

describe('names as other files spell them', () => {
  it.each([
    ['npm-config-auth', 'npmrc-auth', 'NPM_CONFIG__AUTH={b24}='],
    ['npm-config-auth, lower case', 'npmrc-auth', 'npm_config__password = {b16}'],
    ['a Java properties key', 'aws-session-token', 'aws.session.token={b120}'],
    ['a kebab-case key', 'aws-session-token', 'aws-session-token: {b120}'],
  ])('%s is found by its own rule', (_name, rule, template) => {
    expect(everything.matches(fill(template)).map((m) => m.rule.id)).toEqual([rule]);
  });
});

describe("values a Kubernetes Secret's data holds in base64", () => {
  const secret = (lines: string[]) =>
    [
      'apiVersion: v1',
      'kind: Secret',
      'metadata:',
      '  name: shop',
      'type: Opaque',
      'data:',
      ...lines,
      '',
    ].join('\n');

  it('a provider token in it is named as that token, shows only its length, and carries what it encodes', () => {
    const token = fill('sk_live_{a24}');
    const text = secret([`  STRIPE_SECRET_KEY: ${btoa(token)}`]);
    const [match, ...more] = everything.matches(text, 'deploy/shop-secret.yaml');
    expect(more).toEqual([]);
    expect(match).toMatchObject({ decoded: token, rule: { id: 'stripe-secret-key' } });
    expect(text.slice(match!.start, match!.end)).toBe(btoa(token));
    const [finding] = describeMatches(text, [match!], () => 'fp');
    expect(finding).toMatchObject({
      type: 'STRIPE_KEY',
      preview: `${'*'.repeat(12)} (${btoa(token).length} chars)`,
    });
  });

  it('a value found by the name it is assigned to is named so too: the name stays before the decoded value', () => {
    const hex = fill('{h32}');
    const [match] = everything.matches(secret([`  TWILIO_AUTH_TOKEN: ${btoa(hex)}`]));
    expect(match).toMatchObject({ decoded: hex, rule: { id: 'twilio-auth-token' } });
  });

  it('a password in it stays a generic secret, judged by what it encodes', () => {
    const [match] = everything.matches(secret([`  DB_PASSWORD: ${btoa(fill('{a12}7!'))}`]));
    expect(match).toMatchObject({ rule: { id: 'generic-secret-assignment' } });
    expect(match!.decoded).toBeUndefined();
  });
});

describe('generic assignments', () => {
  it.each([
    ['.env', 'DB_PASSWORD={a20}'],
    ['YAML', '  client_secret: {a24}'],
    ['JSON', '"api_key": "{a32}",'],
    ['TOML', 'secret = "{a24}"'],
    ['INI', 'password={a8}7!'],
    ['Go', 'token := "{a24}"'],
    ['Python', "API_KEY = '{a24}'"],
    ['a call that sets it', 'os.environ.setdefault("DB_PASSWORD", "{a12}7!")'],
    ['a Dockerfile', 'ENV SMTP_PASSWORD {a12}7!'],
    ['a Kubernetes env entry', '        - name: DB_PASSWORD\n          value: "{a12}7!"'],
    ['a password with a dot in it', 'password={L3}4{L3}.{L2}7{L2}'],
    ['base64 of a password', `  DB_PASSWORD: ${btoa(fill('{a12}7!'))}`],
    ['random hex', 'API_KEY={h20}'],
  ])('finds a secret in %s', (_format, template) => {
    const line = fill(template);
    expect(everything.matches(line).length, line).toBeGreaterThan(0);
  });

  it.each([
    ['twilio-auth-token', 'os.Setenv("TWILIO_AUTH_TOKEN", "{h32}")'],
    ['datadog-api-key', '  - name: DD_API_KEY\n    value: "{h32}"'],
    ['twilio-auth-token', 'ENV TWILIO_AUTH_TOKEN {h32}'],
    ['gradle-plugin-portal-key', 'GRADLE_PUBLISH_KEY={a32}'],
  ])('%s reads the name wherever it gives the value: %s', (rule, template) => {
    const line = fill(template);
    expect(
      everything.matches(line).map((m) => m.rule.id),
      line,
    ).toEqual([rule]);
  });

  it.each([
    ['a short password', 'password = "hunter2"'],
    ['a word', 'password: changeme'],
    ['a boolean', 'secret: true'],
    ['a number', 'token_ttl: 3600'],
    ['a function call', 'api_key = load_key(path)'],
    ['a low-entropy value', 'token = "aaaaaaaabbbbbbbb"'],
    ['a property path', 'password = settings.DB_PASSWORD'],
    ['an address', '"token_uri": "https://oauth2.googleapis.com/token",'],
    ['a publishable key', `MAPBOX_TOKEN=pk.eyJ${fill('{w50}.{w22}')}`],
    ['base64 of a placeholder', `  SESSION_SECRET: ${btoa('changeme')}`],
    ['base64 of a template', `  GITHUB_TOKEN: ${btoa('<your-github-token>')}`],
    ['a service id that is a UUID', `HEROKU_APP_ID=${fill('{h8}-{h4}-{h4}-{h4}-{h12}')}`],
    ['a project id that is a UUID', `RAILWAY_PROJECT_ID=${fill('{h8}-{h4}-{h4}-{h4}-{h12}')}`],
  ])('leaves %s', (_name, line) => {
    expect(everything.matches(line)).toEqual([]);
  });
});

// How fast is the benchmarks' to measure (npm run bench): a test never asserts a time on a shared
// machine. A pattern that backtracked without bound would pass the test's time limit.
describe('a megabyte of ordinary code', () => {
  it('holds no secret: all rules find nothing in it, in lines or as one minified line', () => {
    const code = [
      'import { createServer } from "node:http";',
      'export function authenticate(token: string, password: string): boolean {',
      '  const secret = process.env.SESSION_SECRET;',
      '  if (!token || token.length < 8) return false;',
      '  return verify(token, secret) && password !== "";',
      '}',
      '// The access key and the api_key are read from the vault at start.',
      'const url = `https://api.example.com/v1/items?page=${page}&limit=50`;',
      'const data = "' + 'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(8) + '";',
      '-----BEGIN PRIVATE KEY----- is how a key file starts; eyJ opens a JWT; sk- and ghp_ are prefixes',
    ].join('\n');
    const text = code.repeat(Math.ceil(1_000_000 / code.length));
    expect(everything.matches(text)).toEqual([]);
    // One long line with no line breaks, the shape of minified code.
    expect(everything.matches(text.replace(/\n/g, ' '))).toEqual([]);
  });
});

describe('the scanner runs both sets together', () => {
  it('every rule id is unique across secrets and personal data', () => {
    expect(() => detector(DETECTION_RULES)).not.toThrow();
    expect(DETECTION_RULES.length).toBe(SECRET_RULES.length + PII_RULES.length);
  });
});
