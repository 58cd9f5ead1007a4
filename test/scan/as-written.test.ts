// Values as people and programs really write them, next to what is not a value: after a string's
// escape, inside a connection string's password, in the API's own URL, under the names `.env`
// files use, in base64, and numbers that only look like phones or births. Each case holds the whole
// value and what it must be found as, so a match that keeps part of a value out fails too.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { detector } from '../../src/scan/detect.ts';
import { DETECTION_RULES, TABLE_READERS } from '../../src/scan/rules.ts';
import { isPlaceholder } from '../../src/scan/secrets/index.ts';

const scanner = detector(DETECTION_RULES, TABLE_READERS);

/** What the scanner finds in `text`, as `rule: value`. */
const found = (text: string, file = 'notes.txt') =>
  scanner.matches(text, file).map((m) => `${m.rule.id}: ${text.slice(m.start, m.end)}`);

const GITHUB = 'ghp_Dce16XRlwC8Kn09D92AEiXlBgAewSZm1f3tl';
const AWS = 'AKIAQ3EGT7LPXR6KZ2MB';
const EMAIL = 'marta.kowalczyk@fastmail.com';

describe('a value right after an escape of its string', () => {
  it.each([
    ['\\n', 'github-personal-access-token', GITHUB],
    ['\\t', 'aws-access-key-id', AWS],
    ['\\u00e9', 'aws-access-key-id', AWS],
    ['\\n', 'email', EMAIL],
    ['\\r', 'card-number', '4539 1488 0343 6467'],
  ])('after %s: %s, whole', (escape, rule, value) => {
    expect(found(`{"note": "line one${escape}${value}\\nline three"}`, 'a.json')).toEqual([
      `${rule}: ${value}`,
    ]);
  });

  it('a letter before a token that is no escape still makes it part of a word', () => {
    expect(found(`{"note": "x${GITHUB}"}`, 'a.json')).toEqual([]);
    expect(found(`{"note": "\\\\${AWS}"}`, 'a.json')).toEqual([`aws-access-key-id: ${AWS}`]);
  });
});

describe('connection strings', () => {
  it.each(['!', '#', '$', '^', '&', '*', '(', ')', '=', '~', '?', ',', ';', '{', '}', '|'])(
    'a password holding %s is the password, whole, and no email',
    (mark) => {
      const password = `Rf7QKJYwbN9b${mark}D5u`;
      expect(
        found(`var dsn = "postgres://billing:${password}@pg-primary.prod:5432/billing"`, 'a.go'),
      ).toEqual([`postgres-connection-password: ${password}`]);
    },
  );

  it('a URL password with a mark is not an email either', () => {
    expect(found('curl https://deploy:pa!ssW0rdXq@git.acme-corp.io/repo.git')).toEqual([
      'generic-url-password: pa!ssW0rdXq',
    ]);
  });

  it('a Redis URL without a user name', () => {
    expect(found('REDIS_URL=redis://:nKJ2kZpkjWP051chwQKF@redis.prod.acme.io:6379/0', '.env')).toEqual([
      'redis-connection-password: nKJ2kZpkjWP051chwQKF',
    ]);
  });
});

describe('tokens where their APIs put them', () => {
  it("a Telegram bot's token in its API URL", () => {
    const token = '3510722552:AAMcqACN74KzdS31HFFnEEnDBloq9LTnyFU';
    expect(found(`url := "https://api.telegram.org/bot${token}/sendMessage"`, 'a.go')).toEqual([
      `telegram-bot-token: ${token}`,
    ]);
  });

  it('a provider name as a later word of a camel-case name (`xFunctionsKey`) names its value', () => {
    const key = 'TzEZVVUAjK3wCcNLnhoaXoa-nIyM68LXMOhKFAJqD42p6L3oUcnmWo==';
    expect(found(`export const xFunctionsKey = '${key}';`, 'config.ts')).toEqual([
      `azure-function-key: ${key}`,
    ]);
    // Inside a word, not at a word's start, it is no name.
    expect(found(`export const xfunctionskeys = '${key}';`, 'config.ts')).toEqual([]);
    // After other words, a name that says no secret itself needs a word that does.
    const digest = 'q3Jt9wXbV0mZk2LpA7sRf4TgYhUe1NcIo8DvWlKxQzP';
    expect(found(`const bundledTogetherHash = "${digest}";`, 'a.ts')).toEqual([]);
    expect(found('const vendorPackagistSha = "a94a8fe5ccb19ba61c4c0873d391e987982fbbd3";', 'a.ts')).toEqual(
      [],
    );
    expect(found(`const prodTogetherKey = "${digest}";`, 'a.ts')).toEqual([`together-api-key: ${digest}`]);
  });

  it('a provider name in camel case (`ScwSecretKey`) names its value', () => {
    expect(found('ScwSecretKey: "7ce4ec13-0c46-c032-7dc5-7fcfae0ba92c",', 'a.go')).toEqual([
      'scaleway-secret-key: 7ce4ec13-0c46-c032-7dc5-7fcfae0ba92c',
    ]);
  });
});

describe('names a password goes by', () => {
  it.each(['DB_PASS', 'SMTP_PASS', 'dbPass', 'ansible_become_pass', 'passphrase', 'DB_PWD'])('%s', (name) => {
    expect(found(`${name}=bIAC7H6h#pCrm8p`, '.env')).toEqual([`generic-secret-assignment: bIAC7H6h#pCrm8p`]);
  });

  it.each(['passenger_count', 'passport_number', 'bypass_cache'])('not %s', (name) => {
    expect(found(`${name}=bIAC7H6h#pCrm8p`, '.env')).toEqual([]);
  });
});

describe('a quoted password with spaces, in a line of configuration', () => {
  it.each([
    ['DB_PASSWORD="s3cr3t with space"', '.env', 's3cr3t with space'],
    ["export DB_PASSWORD='Tr0ub4dor & 3x'", '.envrc', 'Tr0ub4dor & 3x'],
    ['  "password": "k9 #Xv!m 7q",', 'config.json', 'k9 #Xv!m 7q'],
    ["smtp_pass: 'Qw3rty! zu'", 'values.yaml', 'Qw3rty! zu'],
    ['DB_PASSWORD="Xk29vQpL7rTz44Wm and more"  # rotated', '.env', 'Xk29vQpL7rTz44Wm and more'],
    // Deep in a Helm values file, a YAML or Compose list item, Perl and Ruby's `=>`, an INI comment.
    [`${' '.repeat(24)}password: "s3cr3t with space"`, 'values.yaml', 's3cr3t with space'],
    ['  - DB_PASSWORD="s3cr3t with space"', 'docker-compose.yml', 's3cr3t with space'],
    ['    - password: "s3cr3t with space"', 'vars.yml', 's3cr3t with space'],
    ["  'password' => 's3cr3t with space',", 'config.php', 's3cr3t with space'],
    ['password = "s3cr3t with space" ; rotated monthly', 'app.ini', 's3cr3t with space'],
    ['  password: "Contraseña s3gura"', 'config.yml', 'Contraseña s3gura'],
    // The other kind of quote inside the value is part of it.
    [`DB_PASSWORD="p@ss'w0rd x1"`, '.env', "p@ss'w0rd x1"],
    [`db_password: 'say "h3llo" there'`, 'config.yml', 'say "h3llo" there'],
  ])('%s', (line, file, value) => {
    // The whole value, not its first word: a clean copy leaves none of it.
    expect(found(line, file)).toEqual([`generic-quoted-password: ${value}`]);
  });

  it.each([
    // Prompts and messages under a password's name: words of letters, digits standing apart.
    'password: "Must be at least 8 characters long"',
    'password_hint: "Enter 8 chars"',
    'password: "Password is too short"',
    // Code, not a line of configuration.
    'const password = "some value 12";',
    'if (password == "abc 12x") {',
    // A name that does not end with the secret word, and a template.
    'password_length: "x9 y8 z7"',
    'PASSWORD="${DB_PASSWORD} 12x"',
    'compass = "North 3x deg"',
    // Messages with accented letters, acronyms, codes and paths; values a shell fills in.
    'current_password: "Contraseña actual"',
    'password: "Mot de passe oublié ?"',
    'password: "Hasło (co najmniej 8 znaków)"',
    'password: "E-mail or password"',
    'password: "Min. 8 chars (1 digit)"',
    'show_secret: "Show secret (2FA)"',
    'boarding_pass: "Gate B12, seat 14C"',
    'new_password: "New password (%{min} chars min)"',
    'secret = "not set (use env)"',
    'PASSWORD = "see vault: kv/app-1"',
    'DB_PASSWORD="$(vault kv get -field=pw secret/db)"',
    'export PGPASSWORD="$(pass show db/prod)"',
    'export PWD="/home/me/My Projects 2"',
  ])('not %s', (line) => {
    expect(found(line, 'settings.yaml')).toEqual([]);
  });

  it('not in a file of messages in other languages', () => {
    expect(found('  password: "Passw0rt! vergessen"', 'config/locales/de.yml')).toEqual([]);
    expect(found('  password: "Passw0rt! vergessen"', 'config/app.yml')).toEqual([
      'generic-quoted-password: Passw0rt! vergessen',
    ]);
  });
});

describe('keys and passwords holding the marks a generic value stops at', () => {
  it.each([
    // Django's generator draws from letters, digits and !@#$%^&*(-_=+).
    [
      "SECRET_KEY = 'django-insecure-gi+v4#euso_ms61e2p=%k!9vb+(k^d^l3%@sp)m0xc7($uz$rg'",
      'settings.py',
      'django-insecure-gi+v4#euso_ms61e2p=%k!9vb+(k^d^l3%@sp)m0xc7($uz$rg',
    ],
    [
      "SECRET_KEY = 'k2(m9x!p3q+z8w^r5t)y7u&i4o0a-s_d=f6g@h1j%l$c*v'",
      'settings.py',
      'k2(m9x!p3q+z8w^r5t)y7u&i4o0a-s_d=f6g@h1j%l$c*v',
    ],
    ["DB_PASSWORD='p(ss)w0rd!xq'", '.env', 'p(ss)w0rd!xq'],
    ['db_password: "Xk2,9fjQ;0pL"', 'config.yml', 'Xk2,9fjQ;0pL'],
  ])('%s', (line, file, value) => {
    expect(found(line, file)).toEqual([`generic-quoted-password: ${value}`]);
  });

  it.each([
    'SECRET_KEY = get_random_secret_key()',
    "SECRET_KEY = os.environ['DJANGO_SECRET_KEY']",
    'secret_key: "see the docs (rotate yearly)"',
  ])('not %s', (line) => {
    expect(found(line, 'settings.py')).toEqual([]);
  });

  it('a value inside an escaped string ends at its escape (a notebook cell in JSON)', () => {
    const cell =
      '{"source": ["db_password = \\"13lhT7Q87agR4p7H\\"\\n", "API_KEY = \\"a8Kd92mQx0Pl4Rt7Vw3Zb6Nc1Hs5Jy2\\"\\n"]}';
    expect(found(cell, 'analysis.ipynb')).toEqual([
      'generic-secret-assignment: 13lhT7Q87agR4p7H',
      'generic-secret-assignment: a8Kd92mQx0Pl4Rt7Vw3Zb6Nc1Hs5Jy2',
    ]);
    // And a value before an escape in JSON is the value alone.
    expect(found('{"env": "API_TOKEN=q7Wm2Zk9Lp4Xr8Tv3Nb6\\nDEBUG=1"}', 'a.json')).toEqual([
      'generic-secret-assignment: q7Wm2Zk9Lp4Xr8Tv3Nb6',
    ]);
  });
});

describe('passwords on a command line and in a .netrc', () => {
  it.each([
    ['mysql -u root -pT2hO5VI5ShZ28u orders', 'mysql-command-password: T2hO5VI5ShZ28u'],
    ["mysqldump -u app -p'Xk29fjQ0pL' shop > dump.sql", 'mysql-command-password: Xk29fjQ0pL'],
    ['curl -sS --user ci-bot:e7l1Ru3AtFiI https://ci.internal/x', 'curl-user-password: e7l1Ru3AtFiI'],
    ['docker login -u alice -p bsf6jZYSDa3NeL5S registry.io', 'docker-login-password: bsf6jZYSDa3NeL5S'],
    ['command: ["redis-server", "--requirepass", "IiDcQ8mZ2pLx"]', 'redis-requirepass: IiDcQ8mZ2pLx'],
    [
      "curl -H 'authorization: bearer fqpCXcujpEGNWZMCRsvmEGqk7uPCzoUM' https://api.x.io",
      'generic-bearer-token: fqpCXcujpEGNWZMCRsvmEGqk7uPCzoUM',
    ],
    ['machine ftp.corp.net login deploy password Ym8p0ovEgUBfOe', 'netrc-password: Ym8p0ovEgUBfOe'],
    [
      ': 1712345712:0;aws configure set aws_secret_access_key qbjQ1vAFYBf8H+NwALrHRg25gBUNLMDuTFJF6SyX',
      'aws-secret-access-key: qbjQ1vAFYBf8H+NwALrHRg25gBUNLMDuTFJF6SyX',
    ],
  ])('%s', (line, expected) => {
    expect(found(line, 'history.sh')).toEqual([expected]);
  });

  it.each([
    'mysql -u root -p orders',
    'const pool = mysql.createPool({ host, user });',
    'curl -u "$CI_USER:$CI_TOKEN" https://ci.internal/x',
    'docker login -u ci --password-stdin registry.internal',
    'aws configure set region eu-west-1',
    'The state machine is driven by events; the machine learning model needs a password reset.',
  ])('not %s', (line) => {
    expect(found(line, 'history.sh')).toEqual([]);
  });
});

describe('password hashes, files that say what they hold, app passwords and wandb', () => {
  // Random characters in each scheme's form: no password hashes to any of them.
  it.each([
    ['bcrypt', '$2b$12$AFfKDSOS8T4x8IxXaEOBsUSmWx4eLCHGw1Cn5.Q3G289IxFXF3wUu'],
    ['MD5 crypt', '$1$4MLkirkp$5M77k2jXaU7pEwTH158/oW'],
    ["Apache's MD5", '$apr1$fVUzf.Ky$Cn3OAkwSh6bKsMA/7FuoEj'],
    [
      'SHA-256 crypt with rounds',
      '$5$rounds=535000$UJmHuqbHPc44.GAW$jCPyBo4rQkiEqpd6HxujZSnxdTTRCu0BuNHpkXRygfq',
    ],
    [
      'SHA-512 crypt',
      '$6$YwwWUyICr8/ByxRE$RANJUhRClpwo8pE3gbdKMV12e6/MOuAGq6XvgOk8kjgGdWq5DHkYo4meQysKpFPidM3ygwBGUdm6ONTnzp1uQu',
    ],
    ['yescrypt', '$y$j9T$dJ7YG6ZgFIOlCbFnYbrgsf$wRShxY5aGh/OopAaZuD0sje2MjOGNmV/bwgD.OnUaPY'],
    [
      'Argon2id',
      '$argon2id$v=19$m=65536,t=3,p=4$yM7ffBEiLlZ5sGSaVg+vAz$5LmGlZP/t3CjC3DMJpt5v37XxNnW1NFOXli7xIszhI2',
    ],
    [
      "Django's PBKDF2",
      'pbkdf2_sha256$600000$BwiJFLO5Lir068Xx1U8exD$bt/xB3hCSLf2HYeBR8wLWeVF3bG5zsITyn8prpKydss=',
    ],
    ["LDAP's salted SHA-1", '{SSHA}VhD9Bz8KtVERMOoZoyFHBTtstAl3T3VJ'],
    ["Apache's SHA-1", '{SHA}w9+yy11qa/HfGFuaWMd9AZg/CRQ='],
    ['GOST yescrypt', '$gy$j9T$dJ7YG6ZgFIOlCbFnYbrgsf$wRShxY5aGh/OopAaZuD0sje2MjOGNmV/bwgD.OnUaPY'],
    [
      "Django's Argon2",
      'argon2$argon2id$v=19$m=102400,t=2,p=8$yM7ffBEiLlZ5sGSaVg$5LmGlZP/t3CjC3DMJpt5v37XxNnW1NF',
    ],
    ["Django's bcrypt", 'bcrypt_sha256$$2b$12$AFfKDSOS8T4x8IxXaEOBsUSmWx4eLCHGw1Cn5.Q3G289IxFXF3wUu'],
    [
      "Django's scrypt",
      'scrypt$16384$BwiJFLO5Lir068Xx1U8exD$8$1$bt/xB3hCSLf2HYeBR8wLWeVF3bG5zsITyn8prpKydss=',
    ],
    ["LDAP's salted MD5", '{SMD5}VhD9Bz8KtVERMOoZoyFHBTts'],
    [
      'PostgreSQL SCRAM',
      'SCRAM-SHA-256$4096:Xk29fLq0ZpW7sN3vB8aQrw==$jCPyBo4rQkiEqpd6HxujZSnxdTTRCu0BuNHpkXRygfq=:5M77k2jXaU7pEwTH158oWqv7Zx2bNc4Rt6VfH1sJg0A=',
    ],
    ['a doubled $ (Docker Compose)', '$$2b$$05$$AFfKDSOS8T4x8IxXaEOBsUSmWx4eLCHGw1Cn5.Q3G289IxFXF3wUu'],
    [
      'an escaped $ (double quotes)',
      '\\$6\\$YwwWUyICr8/ByxRE\\$RANJUhRClpwo8pE3gbdKMV12e6/MOuAGq6XvgOk8kjgGdWq5DHkYo4meQysKpFPidM3ygwBGUdm6ONTnzp1uQu',
    ],
  ])('%s', (_scheme, hash) => {
    expect(found(`deploy:${hash}:19700:0:99999:7:::`, 'etc/shadow')).toEqual([`password-hash: ${hash}`]);
    expect(found(`  password: "${hash}"`, 'db/seeds.yml')).toContain(`password-hash: ${hash}`);
  });

  it.each([
    "const out = name.replace(/(\\w+)\\s(\\w+)/, '$1$2');",
    'Total: $5$ per seat, or $6$ a month billed monthly',
    'deploy:$2b$12$xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx',
    'deploy:$2b$12$AFfKDSOS8T4x8IxXaEOBsUSmWx4eLCHGw1Cn5.Q3G289IxFXF3wU',
    'userPassword: {SHA}',
    // The salt is a documentation's placeholder (openssl's manual).
    '$ openssl passwd -1 -salt xxxxxxxx password  # $1$xxxxxxxx$UYCIxa628.9qXjpQCjM4a.',
  ])('not %s', (line) => {
    expect(found(line, 'notes.txt')).toEqual([]);
  });

  it('a .pgpass line gives its password, under the file name alone', () => {
    const text =
      '# prod\ndb-prod.internal:5432:orders:orders_app:G13ugQAObWyA\\:gEek\r\n*:*:*:analytics_ro:*\n' +
      // The user's name again: a local setup's default.
      'localhost:5432:*:postgres:postgres\n';
    expect(found(text, 'home/.pgpass')).toEqual(['pgpass-password: G13ugQAObWyA\\:gEek']);
    expect(found(text, 'AppData/Roaming/postgresql/pgpass.conf')).toHaveLength(1);
    expect(found(text, 'notes/pgpass.md')).toEqual([]);
  });

  it("MySQL's native password hash, after PASSWORD", () => {
    const hash = '*6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9'.replace('6BB4', 'A3F9');
    expect(found(`CREATE USER 'app'@'%' IDENTIFIED BY PASSWORD '${hash}';`, 'dump.sql')).toEqual([
      `password-hash: ${hash}`,
    ]);
  });

  it("Rails's master key, in its file alone", () => {
    expect(found('80e359f74e483138c50cf188db459c14', 'config/master.key')).toEqual([
      'rails-master-key: 80e359f74e483138c50cf188db459c14',
    ]);
    expect(found('80e359f74e483138c50cf188db459c14\n', 'config/credentials/production.key')).toHaveLength(1);
    expect(found('80e359f74e483138c50cf188db459c14', 'config/cache.key')).toEqual([]);
    expect(found('-----BEGIN PUBLIC KEY-----', 'config/master.key')).toEqual([]);
  });

  it("a bare Key in .NET's settings, not a key's name", () => {
    const settings = [
      '{',
      '  "Jwt": { "Key": "+jyN+r6hxgeqXT7gHfxIdkWRVq0qQ0TduwGetyBeu9rsPkSB", "Issuer": "https://api.acme-corp.io" },',
      '  "Cache": { "Key": "orders-by-customer-v2" },',
      '  "ApplicationInsights": { "InstrumentationKey": "a40f3b60-fdb5-461c-a273-efe54dc0506a" }',
      '}',
    ].join('\n');
    expect(found(settings, 'src/Api/appsettings.Production.json')).toEqual([
      'dotnet-settings-key: +jyN+r6hxgeqXT7gHfxIdkWRVq0qQ0TduwGetyBeu9rsPkSB',
    ]);
    expect(
      found('{ "Jwt:Key": "+jyN+r6hxgeqXT7gHfxIdkWRVq0qQ0TduwGetyBeu9rsPkSB" }', 'secrets.json'),
    ).toHaveLength(1);
    expect(found(settings, 'src/Api/package.json')).toEqual([]);
    // Other key names, the environment's `__` form, a two-part environment's file.
    for (const [line, file] of [
      ['{ "Auth": { "SigningKey": "YM8dK2pQz7Lw9XbNc4Rt6VfH1sJg0AeU" } }', 'appsettings.json'],
      ['{ "Jwt__Key": "YM8dK2pQz7Lw9XbNc4Rt6VfH1sJg0AeU" }', 'Properties/launchSettings.json'],
      [
        '{ "Crypto": { "EncryptionKey": "YM8dK2pQz7Lw9XbNc4Rt6VfH1sJg0AeU" } }',
        'appsettings.Staging.EU.json',
      ],
    ])
      expect(found(line!, file), line).toEqual(['dotnet-settings-key: YM8dK2pQz7Lw9XbNc4Rt6VfH1sJg0AeU']);
    // Names of limits, jobs and messages: words and numbers, no key.
    for (const value of [
      'FixedWindow10PerMinute',
      'NightlyCleanupJob01',
      'Welcome.Message.Title2',
      'AdminDashboardV2',
    ])
      expect(found(`{ "Jobs": { "Key": "${value}" } }`, 'appsettings.json'), value).toEqual([]);
  });

  it('a mail app password, with its spaces or without', () => {
    for (const [line, file] of [
      ['spring.mail.password=sbztghlziymgqdno', 'application.properties'],
      ["EMAIL_HOST_PASSWORD = 'sbzt ghlz iymg qdno'", 'settings.py'],
      ['MAIL_PASSWORD=sbzt ghlz iymg qdno', '.env'],
      ["$mail->Password   = 'sbzt ghlz iymg qdno';", 'mailer.php'],
      ['set imap_pass = sbztghlziymgqdno', '.muttrc'],
    ]) {
      expect(found(line!, file), line).toEqual([
        'mail-app-password: ' + (line!.includes('sbzt ghlz') ? 'sbzt ghlz iymg qdno' : 'sbztghlziymgqdno'),
      ]);
    }
    // Words joined (a review's cases), a name that says no password, a setting of no mail server.
    for (const line of [
      'MAIL_PASSWORD=mysecretpassword',
      'SMTP_PASSWORD=sendgridpassword',
      'MAIL_PASSWORD=mailtrappassword',
      'EMAIL_PASSWORD=thisismypassword',
      'SMTP_PASSWORD="pass word from mail"',
      'spring.mail.password=secretpassphrase',
      'spring.mail.username=sbztghlziymgqdno',
      'spring.datasource.password=sbztghlziymgqdno',
    ])
      expect(found(line, 'application.properties'), line).toEqual([]);
  });

  it("a Dockerfile's older ENV form gives a Basic header's credentials", () => {
    const value = btoa('deploy:stu2IcxY4yrNtVov');
    expect(found(`ENV AUTHORIZATION Basic ${value}`, 'Dockerfile')).toEqual([
      `generic-basic-auth-header: ${value}`,
    ]);
    // A space after the name elsewhere is prose, not the header.
    expect(found(`The Authorization Basic ${value} scheme`, 'notes.txt')).toEqual([]);
  });

  it('a key given to wandb.login in a notebook', () => {
    expect(
      found('    "wandb.login(key=\\"dfbf7e2294037bb355287eccb021fcd1df493248\\")\\n",', 'a.ipynb'),
    ).toEqual(['wandb-login-key: dfbf7e2294037bb355287eccb021fcd1df493248']);
    expect(found('wandb.login(key=os.environ["WANDB_KEY"])', 'a.py')).toEqual([]);
  });
});

describe('what a secret-sounding name holds that is no secret', () => {
  it.each([
    'const SECRET_PARAM = "client_secret";',
    'const passwordField = "new-password";',
    'api_key_header = "X-API-Key"',
    'access_key_field: "awsAccessKeyId"',
    'self.auth_backend = "django.contrib.auth.backends.ModelBackend"',
    'password_file: /run/secrets/db_password',
    'secret_key_path = "~/.config/acme/secret.key"',
    'credential_process = /usr/local/bin/aws-vault export --format=json prod',
    'api_key: "REPLACE_WITH_TOKEN"',
    'api_key: "#{db_password}"',
    'api_key: "__DB_PASSWORD__"',
    'api_key: "@@DB_PASSWORD@@"',
    'api_key: "MY_SECRET_PASSWORD"',
    'api_key: "projects/acme/secrets/db-password/versions/latest"',
    'DATABASE_URL = "postgres://app:{password}@db/app"',
    // Code: optional chains, types, constants, scopes, URNs, format fields, shell variables.
    'this._authProvider = opts?.authProvider;',
    'this.#withCredentials = eventSourceInitDict?.withCredentials;',
    'getPublicKey: (secretKey: Uint8Array) => Uint8Array',
    'SEC_ERROR_BAD_PASSWORD = SEC_ERROR_BASE + 15',
    '_M_token = _S_token_subexpr_begin;',
    'using llvm::Pass::doFinalization;',
    'grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer"',
    'print(f"password={password!r}")',
    'authority_cert_issuer={0.authority_cert_issuer}',
    'opts="-auth=anonymous:$FROM_EMAIL"',
    // Help text under the name `pass`: its escape is a line's end, not part of a strong word.
    "'pass': 'The \"pass\" statement\\n'",
    // A .netrc entry for a documentation host, and a template that writes one.
    'machine example.com login me password qwerty',
    "f'machine {host} login {self.username} password {self.password}'",
  ])('%s', (line) => {
    expect(found(line, 'settings.py')).toEqual([]);
  });

  it('while a password that is a word with digits and marks still is one', () => {
    expect(found('password = "Summer2024!"', 'settings.py')).toEqual([
      'generic-secret-assignment: Summer2024!',
    ]);
    // A passphrase whose words hold the letters of `key` is no field's name.
    expect(found('DB_PASSWORD="MonkeyBusinessTurkeyFeast"', '.env')).toEqual([
      'generic-secret-assignment: MonkeyBusinessTurkeyFeast',
    ]);
  });
});

describe('placeholder words', () => {
  it.each(['tk-us-n4WhPCUnhuvsA8t1Aaxfy-dr0z4rQtZk1u7TqBzGxVfAKEru', 're_8UqXxp8N_orTphSwqhD4pTOdO9uKJei0n'])(
    'spelt by chance in a random value (%s) do not make it a placeholder',
    (value) => {
      expect(isPlaceholder(value)).toBe(false);
    },
  );

  it.each([
    'sk_live_YOUR_KEY_HERE',
    'your-api-key-here',
    'ghp_myFakeTokenForDocs123',
    'FAKE-TOKEN-123456',
    'AKIAIOSFODNN7EXAMPLE',
    'sk-xxxxxxxxxxxxxxxx',
    'todo_replace_later_9',
  ])('written by a person (%s) do', (value) => {
    expect(isPlaceholder(value)).toBe(true);
  });
});

describe('a private key', () => {
  const pem = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    type: 'pkcs8',
    format: 'pem',
  }) as string;

  it('whose random body happens to spell a placeholder word is still a key', () => {
    const lines = pem.split('\n');
    lines[5] = `${lines[5]!.slice(0, 20)}Fake${lines[5]!.slice(24)}`;
    lines[9] = `${lines[9]!.slice(0, 30)}YOUR${lines[9]!.slice(34)}`;
    const text = lines.join('\n');
    expect(found(text, 'server.key')).toEqual([`pkcs8-private-key: ${text.trimEnd()}`]);
  });

  it('after many blocks that never end, found whole from its own start', () => {
    const unfinished = '-----BEGIN PRIVATE KEY-----\n'.repeat(2000);
    expect(found(`${unfinished}${pem}`, 'dump.txt')).toEqual([`pkcs8-private-key: ${pem.trimEnd()}`]);
  });

  it('in base64: a TLS Secret, a kubeconfig, a variable', () => {
    const b64 = Buffer.from(pem).toString('base64');
    for (const [text, file] of [
      [`kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.key: ${b64}\n`, 'tls.yaml'],
      [`users:\n- name: admin\n  user:\n    client-key-data: ${b64}\n`, 'kubeconfig'],
      [`SSH_PRIVATE_KEY_B64=${b64}\n`, '.env'],
    ]) {
      expect(found(text!, file)).toEqual([`base64-private-key: ${b64}`]);
    }
  });

  it('but not a certificate in base64', () => {
    const cert = Buffer.from(pem.replaceAll('PRIVATE KEY', 'CERTIFICATE')).toString('base64');
    expect(found(`  tls.crt: ${cert}\n`, 'tls.yaml')).toEqual([]);
  });
});

describe('personal data as written', () => {
  it('an address with an apostrophe or Latin letters, whole', () => {
    expect(found("mail o'brien.sean@btinternet.co.uk or zoë.müller@gmx.de")).toEqual([
      "email: o'brien.sean@btinternet.co.uk",
      'email: zoë.müller@gmx.de',
    ]);
    expect(found(`to: '${EMAIL}'`)).toEqual([`email: ${EMAIL}`]);
  });

  it.each([
    'Call 555-0142 for the demo.',
    'Phone: 555-0199',
    'Mobile: 07700 900123',
    'phone: +44 20 7946 0958',
    'phone_verified_at: 2024-03-12 10:15:32',
  ])('no phone number in %j (fiction, or a date)', (text) => {
    expect(found(text)).toEqual([]);
  });

  it('an IPv4 address after a phone word is an address, not a phone', () => {
    expect(found('phone=+49 30 90182734 ip=91.64.12.201')).toEqual([
      'phone-e164: +49 30 90182734',
      'ip-address-v4: 91.64.12.201',
    ]);
  });

  it("a version in a Kubernetes env entry's value is no address; an address there is", () => {
    expect(found('  - name: BUILD_VERSION\n    value: "2.32.0.101"\n', 'deploy.yaml')).toEqual([]);
    expect(found('  - name: UPSTREAM_HOST\n    value: "91.64.12.201"\n', 'deploy.yaml')).toEqual([
      'ip-address-v4: 91.64.12.201',
    ]);
  });

  it("a Gradle publishing key in a Kubernetes env entry's value", () => {
    expect(
      found('  - name: GRADLE_PUBLISH_KEY\n    value: "fvjgPpIcFOV52L27tjLgFyoso4xTmkTh"\n', 'deploy.yaml'),
    ).toEqual(['gradle-plugin-portal-key: fvjgPpIcFOV52L27tjLgFyoso4xTmkTh']);
  });

  it('a rebirth is no birth', () => {
    expect(found('rebirth of the project 2024-01-15')).toEqual([]);
    expect(found('date of birth: 1984-03-12')).toEqual(['date-of-birth: 1984-03-12']);
  });
});
