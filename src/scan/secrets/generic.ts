// Secrets no provider format names: a value assigned to a name that says it is secret (in code,
// YAML, .env, JSON, TOML, INI, XML), a password in any `scheme://user:password@host`, and
// credentials in HTTP Authorization headers. Judged by entropy, length and the name.

import type { Context, DetectionRule } from '../detect.ts';
import { bitsPerChar, isPlaceholder, secretRule } from './rule.ts';

/**
 * Names that say a value is secret. `auth` and `token` also name things that are not, so they weigh
 * less. `pass` counts where the name ends with it (`DB_PASS`, `dbPass`, `ansible_become_pass`), not
 * in `passenger` or `passport`.
 */
const STRONG_NAME =
  /password|passwd|passphrase|(?<!by|com|sur|tres|over|under)pass(?=["']?[ \t]{0,40}(?::=|=>|=|:))|pwd|secret|api[_-]?key|apikey|private[_-]?key|access[_-]?key|credential/i;

/**
 * Property paths (`this.token`, `config.apiKey`, `Foo::KEY`, `settings.DB_PASSWORD`): code that
 * reads a value, not one. Each part is words as code names them (letters, trailing digits, or upper
 * case with underscores), so a password with a dot in it (`h38gBAU.n7f`) is not read as one.
 */
const PROPERTY_PATH = /^#?[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)#?[A-Za-z_$][\w$]*)+$/;
const PATH_PART = /^#?(?:[A-Za-z_$][A-Za-z_$]*\d*|[A-Z_][A-Z0-9_]*)$/;
const isPropertyPath = (value: string) =>
  PROPERTY_PATH.test(value) && value.split(/\??\.|::|->/).every((part) => PATH_PART.test(part));

/**
 * Keys their providers publish to browsers by design (Stripe's publishable `pk_live_`, Mapbox's
 * public `pk.eyJ`, PostHog's project `phc_`): under a name that says token, still no secret.
 */
const PUBLIC_KEY = /^(?:pk_(?:live|test)_|pk\.eyJ|phc_)/;

/** An address without credentials (`https://oauth2.googleapis.com/token` under `token_uri`). */
const PLAIN_URL = /^[a-z][a-z0-9+.-]*:\/\/[^\s:@]+$/i;

/**
 * A path to a file (`/run/secrets/db_password`, `~/.config/acme/secret.key`, `./certs/tls.key`):
 * where a secret is kept, not the secret. Lower case only, as paths are written and random text is not.
 */
const FILE_PATH = /^(?:~|\.{1,2})?\/(?:[a-z0-9_.-]+\/)*[a-z0-9_.-]+$/;

/**
 * A value made of letters and separators only, one of whose words says secret (`"client_secret"`,
 * `"new-password"`, `"X-API-Key"`, `"awsAccessKeyId"`, `MY_SECRET_PASSWORD`): the name of a field,
 * a header or a setting, quoted or not, not its value. Words as code splits them (separators, and
 * camel case), so a passphrase that holds such letters (`MonkeyBusinessTurkeyFeast`) is no name.
 */
const SECRET_WORD =
  /^(?:(?:un|o)?auth\w*|pass(?:word|wd|phrase)?s?|pwd|secrets?|tokens?|credentials?|(?:api)?keys?)$/i;
function namesItself(value: string): boolean {
  if (!/^[@A-Za-z][A-Za-z._/@-]*$/.test(value)) return false;
  const words = value.split(/[._/@-]+|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/);
  return words.length > 1 && words.some((word) => SECRET_WORD.test(word));
}

/**
 * Words joined as code names them (`string`, `getPassword`, `SessionToken`, `none_set`), a type
 * with one number in it (`Uint8Array`, `Float32Array`), a constant (`SEC_ERROR_BASE`), a private
 * name (`_S_token_begin`), and words between colons (an identifier's URN, `grant-type:jwt-bearer`).
 */
const WORDS =
  /^(?:[a-z]+(?:[A-Z][a-z]+)*|[A-Z][a-z]+(?:[A-Z][a-z]+)*|[a-z]+(?:[_:-][a-z]+)+|[A-Z]?[a-z]+\d{1,2}(?:[A-Z][a-z]+)+|[A-Z]+(?:_[A-Z0-9]+)+|_+[A-Za-z]+(?:_[A-Za-z]+)*)$/;

/**
 * Whether the password in `scheme://user:password@host` is the user's name again
 * (`postgres:postgres@`): the default of a local setup, not a leak.
 */
export function isUserName(value: string, line: string): boolean {
  const at = line.indexOf(`:${value}@`);
  if (at < 0) return false;
  const user = line.slice(line.lastIndexOf('/', at) + 1, at);
  return user === value;
}

/**
 * The text a base64 value holds, when it holds printable text: a Kubernetes Secret's `data:` writes
 * every value so (`Y2hhbmdlbWU=` is `changeme`). Random bytes, and so a token that merely uses the
 * base64 alphabet, almost never decode to printable text.
 */
export function base64Text(value: string): string | undefined {
  if (value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  try {
    const text = atob(value);
    return /^[\x20-\x7e]+$/.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

/** What the value's own characters say: entropy and length against the name that holds it. */
export function judgeAssignedValue(value: string, context: Context): boolean | number {
  // Base64 of text: the text is what is judged (a placeholder encoded is still a placeholder).
  const inner = base64Text(value);
  if (inner !== undefined) {
    if (isPlaceholder(inner) || /\s/.test(inner)) return false;
    return judgeAssignedValue(inner, { ...context, line: context.line.replace(value, inner) });
  }
  const at = context.line.indexOf(value);
  const quoted = at > 0 && /["'`>]/.test(context.line[at - 1]!);
  if (!quoted && (isPropertyPath(value) || WORDS.test(value))) return false;
  // A scope (`Pass::doFinalization`, a Ruby symbol) or a value a template or a shell fills in
  // (`{password!r}`, `{0.issuer}`, `anonymous:$FROM_EMAIL`): code, not a value.
  if (/^:[A-Za-z_]/.test(value) || FORMAT_FIELD.test(value) || /\$[A-Z][A-Z0-9_]{2,}\b/.test(value))
    return false;
  // The first word of a quoted phrase (`"Contraseña actual"`): the phrase is judged whole, by the
  // quoted password's rule, or it is a message.
  if (quoted && /\s/.test(context.line[at + value.length] ?? '')) return false;
  if (MESSAGES_FILE.test(context.file)) return false;
  if (/^(?:true|false|null|nil|none|undefined|\d+)$/i.test(value)) return false;
  if (PUBLIC_KEY.test(value) || PLAIN_URL.test(value) || FILE_PATH.test(value) || namesItself(value)) {
    return false;
  }
  const bits = bitsPerChar(value);
  // A Kubernetes env entry's `value:` line is reached from a strong name only (the pattern's last branch).
  const strong = STRONG_NAME.test(context.line) || /^\s*value:/.test(context.line);
  if (value.length >= 16) {
    // Hex digits carry at most 4 bits each, so random hex reads lower than random base64.
    if (bits < (/^[0-9a-f]+$/i.test(value) ? 3 : 3.5)) return false;
    return strong ? 0.6 : 0.5;
  }
  // 8 to 15 characters: a password, when it mixes kinds of characters.
  const kinds = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9]/].filter((kind) => kind.test(value)).length;
  if (bits < 2.8 || kinds < 2 || !strong) return false;
  return 0.45;
}

/**
 * Sixteen random letters, as an app password is: lower case, and no word of a setting or of a
 * person's phrase in them (`mailtrappassword`, `thisismypassword`, `pass word from mail`), which
 * random letters hold about once in ten thousand. Entropy alone cannot tell them apart: such
 * phrases carry 3.1 to 3.5 bits a character, random letters 2.9 to 3.9.
 */
function judgeAppPassword(value: string): boolean {
  const letters = value.replaceAll(' ', '');
  return (
    /^[a-z]+$/.test(letters) &&
    !/pass|word|mail|smtp|imap|secret|user|this|login|admin|test|demo|example/.test(letters) &&
    bitsPerChar(letters) >= 2.9
  );
}

/** A format string's field, as Python's `format` and f-strings write it (`{password!r}`, `{0.name:>8}`). */
const FORMAT_FIELD = /\{[\w.]*(?:![rsa])?(?::[^{}]*)?\}/;

/**
 * Text a template or a shell fills in (`$(…)`, `${…}`, a backquote, `%{…}`, `{{…}}`): no password.
 * A `$(` or `${` counts with its closing bracket: a random key may hold the two characters alone.
 */
const FILLED_IN = /\$\([^)]*\)|\$\{[^}]*\}|`|%\{|\{\{/;
/** Files of a program's messages in other languages (Rails `config/locales/`, `i18n/`, gettext). */
const MESSAGES_FILE =
  /(?:^|\/)(?:locales?|i18n|l10n|lang|translations?)\/|(?:^|\/)(?:messages_)?[a-z]{2}(?:[-_][A-Za-z]{2})?\.(?:ya?ml|json|properties)$|\.(?:pot?|xliff|xlf|strings|resx)$/i;

/**
 * A quoted value with spaces (or another character a generic value stops at) under a password's
 * or a secret key's name: a password when it has a strong word, five
 * characters or more that mix letters with digits or marks (`s3cr3t`, `Tr0ub4dor`, `#Xv!m`), as
 * the words of prompts and messages do not (`Enter 8 chars`, `Show secret (2FA)`, `Gate B12`,
 * `Contraseña actual`: accented letters are letters); a path (`kv/app-1`) is no such word. And it
 * reads as no sentence (four words or more, nearly all of letters only), is not filled in by a
 * template or a shell, is not the shell's working folder (`PWD`), and is not in a file of messages.
 */
function judgeQuotedPassword(value: string, context: Context): boolean {
  if (FILLED_IN.test(value) || MESSAGES_FILE.test(context.file)) return false;
  if (/^[ \t]*(?:-[ \t]+)?(?:export[ \t]+)?(?:OLD)?PWD[ \t]*=/.test(context.line)) return false;
  // A string's escapes (`\n`) part its words as the spaces they stand for.
  const words = value
    .replace(/\\[nrt]/g, ' ')
    .trim()
    .split(/\s+/)
    .map((word) => word.replace(/^[([{"'¿¡]+|[)\]}.,!?:;"']+$/g, ''));
  const plain = words.filter((word) => /^\p{L}+(?:-\p{L}+)*$/u.test(word)).length;
  if (words.length >= 4 && plain * 4 >= words.length * 3) return false;
  const strong = (word: string) =>
    word.length >= 5 && !word.includes('/') && /\p{L}/u.test(word) && /[^\p{L}-]/u.test(word);
  return words.some(strong) && bitsPerChar(value) >= 3;
}

/**
 * The words of a password's or a secret's name, as keywords. A name that ends with `pass`
 * (`DB_PASS=`) is found by what follows it: `pass` alone is in most code.
 */
const PASSWORD_KEYWORDS = [
  'password',
  'passwd',
  'passphrase',
  'pass=',
  'pass:',
  'pass"',
  "pass'",
  'pass ',
  'pass\t',
  'pwd',
  'secret',
];

const SECRET_NAMES =
  'password|passwd|passphrase|(?<!by|com|sur|tres|over|under)pass(?=["\']?[ \\t]{0,40}(?::=|=>|=|:))|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth(?!or|entic)|credential';
const STRONG_NAMES = 'password|passwd|secret|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential';
/**
 * What a generic value may hold: no space, quote, comma, semicolon, bracket or backslash (a value
 * inside an escaped string ends at its escape: `\"` in a notebook's JSON, `\n` after it).
 */
const GENERIC_VALUE = `(?<value>[^\\s"'\`,;()\\[\\]\\\\]{8,256})(?=["'\`\\s,;)\\]\\\\]|$)`;

/**
 * A `$` between a hash's parts as it is written: itself, doubled (Docker Compose and Traefik's
 * labels write `$$`), or escaped from a shell's or PHP's double quotes (`\$`).
 */
const S = String.raw`(?:\$\$|\\\$|\$)`;
const CRYPT = '[./A-Za-z0-9]';
const B64 = '[A-Za-z0-9+/]';

/**
 * The forms of a password's hash, each as its scheme writes it: `$id$` (or `{SCHEME}`, or a
 * framework's `name$`), the scheme's settings, the salt and the hash.
 */
const PASSWORD_HASH_FORMS = [
  // bcrypt; MD5 crypt and Apache's; SHA-256 and SHA-512 crypt; yescrypt and GOST yescrypt;
  // scrypt (libxcrypt's `$7$`, and Mosquitto's with base64); NetBSD's SHA-1 crypt.
  `${S}2[abxy]?${S}\\d{2}${S}${CRYPT}{53}`,
  `${S}(?:1|apr1)${S}${CRYPT}{1,8}${S}${CRYPT}{22}`,
  `${S}[56]${S}(?:rounds=\\d{1,9}${S})?${CRYPT}{1,16}${S}(?:${CRYPT}{86}|${CRYPT}{43})`,
  `${S}g?y${S}${CRYPT}{1,16}${S}${CRYPT}{1,86}${S}${CRYPT}{43}`,
  `${S}7${S}(?:${CRYPT}{11,64}${S}${CRYPT}{43}|\\d{1,6}${S}${B64}{8,88}={0,2}${S}${B64}{20,88}={0,2})`,
  `${S}sha1${S}\\d{1,9}${S}${CRYPT}{1,64}${S}${CRYPT}{28}`,
  // Argon2's PHC string.
  `${S}argon2(?:id|i|d)${S}(?:v=\\d{1,3}${S})?m=\\d{1,10},t=\\d{1,10},p=\\d{1,3}${S}${B64}{8,88}${S}${B64}{16,172}`,
  // Django's hashers: `algorithm$…`.
  `pbkdf2_sha(?:1|256)\\$\\d{1,9}\\$[\\w./+-]{1,64}\\$${B64}{20,88}={0,2}`,
  `argon2\\$argon2(?:id|i|d)\\$v=\\d{1,3}\\$m=\\d{1,10},t=\\d{1,10},p=\\d{1,3}\\$${B64}{8,88}\\$${B64}{16,172}`,
  `bcrypt(?:_sha256)?\\$\\$2[abxy]\\$\\d{2}\\$${CRYPT}{53}`,
  `scrypt\\$\\d{1,9}\\$[\\w./+-]{1,64}\\$\\d{1,3}\\$\\d{1,3}\\$${B64}{20,128}={0,2}`,
  // LDAP's and Apache's `{SCHEME}base64`, LDAP's PBKDF2, Spring Security's `{pbkdf2}` in hex.
  `\\{(?:S?SHA(?:256|384|512)?|s?sha(?:256|384|512)?|S?MD5|s?md5)\\}${B64}{22,120}={0,2}`,
  `\\{PBKDF2(?:-SHA(?:1|256|512))?\\}\\d{1,9}\\$[A-Za-z0-9+/.]{8,128}\\$[A-Za-z0-9+/.]{16,256}`,
  `\\{pbkdf2\\}[a-f0-9]{64,160}`,
  // PostgreSQL's SCRAM verifier (`pg_dumpall --roles`, pgbouncer), MySQL's native password hash.
  `SCRAM-SHA-256\\$\\d{1,9}:${B64}{16,64}={0,2}\\$${B64}{40,64}={0,2}:${B64}{40,64}={0,2}`,
  `(?<=\\bPASSWORD[ \\t]{1,8}['"])\\*[0-9A-F]{40}`,
];

export const GENERIC_RULES: readonly DetectionRule[] = [
  // `API_KEY=...`, `password: ...`, `"client_secret": "..."`, `token := "..."`, `secret = '...'`,
  // `os.Setenv("DB_PASSWORD", "...")`, a Dockerfile's `ENV DB_PASSWORD ...`, and a Kubernetes env entry whose name says password or
  // secret (`- name: DB_PASSWORD`, `value: ...` on the next line). The match starts at the secret
  // word, so the engine never walks a long identifier twice.
  secretRule({
    id: 'generic-secret-assignment',
    type: 'SECRET',
    keywords: [
      ...PASSWORD_KEYWORDS,
      'token',
      'api_key',
      'api-key',
      'apikey',
      'access_key',
      'access-key',
      'accesskey',
      'private_key',
      'private-key',
      'privatekey',
      'auth',
      'credential',
    ],
    pattern: new RegExp(
      `(?:(?:${SECRET_NAMES})[\\w.-]{0,30}?(?:\\\\?["']?\\]?[ \\t]{0,40}(?::=|=>|=|:)[ \\t]{0,40}\\\\?["'\`]?|["'][ \\t]{0,40},[ \\t]{0,40}["']|(?<=^[ \\t]{0,40}ENV[ \\t]{1,40}[\\w.-]+)[ \\t]{1,40})|(?:${STRONG_NAMES})[\\w.-]{0,30}?["']?[ \\t]{0,40}\\r?\\n[ \\t]{0,40}value:[ \\t]{0,40}["']?)${GENERIC_VALUE}`,
      'gim',
    ),
    // A match starts at its secret word, a keyword or (`client_secret`) seven characters before one.
    // A Kubernetes Secret's value is base64: a provider's token in it is named as that token.
    decodes: base64Text,
    lead: 7,
    // After the word: the rest of the name, then `=`, `:`, a line break, a quote and a comma, or
    // the space after a Dockerfile's `ENV` name. Most `token` and `auth` of code are followed by
    // none of these (`token)`, `this.auth.user`): no window is opened there. A `pass` keyword holds
    // what follows it already.
    follows: new RegExp(
      `[\\w.-]{0,30}(?:\\\\?["']?\\]?[ \\t]{0,40}(?:[:=]|\\r?\\n)|["'][ \\t]{0,40},|(?<=^[ \\t]{0,40}ENV[ \\t]{1,40}[\\w.-]+)[ \\t])|(?<=pass[=:"' \\t])`,
      'imy',
    ),
    confidence: 0.55,
    check: judgeAssignedValue,
  }),
  // A quoted password with spaces, `#`, brackets, commas or semicolons (where the generic assignment
  // stops) in a line of configuration (`DB_PASSWORD="s3cr3t and more"`, Django's `SECRET_KEY = '…(…'`,
  // `password: 'Tr0ub4dor & 3'`, `- DB_PASSWORD="…"`), where the generic assignment stops at the
  // first space: the name ends with its secret word and the line holds the assignment alone, as
  // configuration writes it (code rarely does), and the value has a word that mixes letters with
  // digits or marks, as prose seldom does.
  secretRule({
    id: 'generic-quoted-password',
    type: 'SECRET',
    keywords: PASSWORD_KEYWORDS,
    pattern:
      /^[ \t]{0,40}(?:-[ \t]{1,8})?(?:export[ \t]{1,8})?["']?(?:[A-Za-z_][\w.-]{0,40}?)?(?:password|passwd|passphrase|(?<!by|com|sur|tres|over|under)pass|secret(?:[_-]?key)?|pwd)["']?[ \t]{0,8}(?:=>|[:=])[ \t]{0,8}(?:"(?<value>(?=[^"\r\n]{0,127}[ \t#(),;[\]])[^"\r\n]{8,128})"|'(?<value>(?=[^'\r\n]{0,127}[ \t#(),;[\]])[^'\r\n]{8,128})')[ \t]{0,8},?[ \t]{0,8}(?:[#;][^\r\n]{0,200})?\r?$/gim,
    // Every quantifier is bounded: a window's search reads only as far as a match could reach. With
    // one `*`, each window's search read on to the text's end: detection of the throughput
    // benchmark's set took 75% longer. The value is one greedy run up to its quote, its space looked
    // for ahead: a lazy run then a greedy one tried every split of a long run of spaces (400 times
    // slower on such lines).
    lead: 100,
    // The name ends at its keyword (or a `_key` after `secret`): a quote, the assignment and the
    // value's quote follow.
    follows: /(?:[_-]?key)?["']?[ \t]{0,8}(?:=>|[:=])?[ \t]{0,8}["']/iy,
    // As sure as the generic assignment: of the two, the longer (the whole quoted value) stays.
    confidence: 0.6,
    check: judgeQuotedPassword,
  }),
  // `<password>...</password>`: Maven's settings.xml and other XML configuration.
  secretRule({
    id: 'generic-xml-secret',
    type: 'SECRET',
    keywords: ['<password>', '<passphrase>', '<secret>', '<token>', '<apikey>', '<api-key>', '<privatekey>'],
    pattern:
      /<(?<tag>password|passphrase|secret|token|apikey|api-key|privatekey)>(?<value>[^<\s]{8,256})<\/\k<tag>>/gi,
    confidence: 0.6,
    check: judgeAssignedValue,
  }),
  // WordPress's keys and salts in wp-config.php (`define( 'AUTH_KEY', '…' );`): 64 characters from
  // its generator's set, brackets, commas and semicolons included, under names that say no secret
  // word (`NONCE_SALT`). The sample file's `put your unique phrase here` is no key.
  {
    id: 'wordpress-auth-key',
    category: 'secret',
    type: 'WORDPRESS_KEY',
    keywords: ['auth_key', 'auth_salt', 'logged_in_key', 'logged_in_salt', 'nonce_key', 'nonce_salt'],
    pattern:
      /\bdefine\([ \t]{0,8}["'](?:SECURE_AUTH|AUTH|LOGGED_IN|NONCE)_(?:KEY|SALT)["'][ \t]{0,8},[ \t]{0,40}(?:'(?<value>[^'\r\n]{32,128})'|"(?<value>[^"\r\n]{32,128})")/g,
    lead: 30,
    confidence: 0.9,
    // Not the shared placeholder check: a random key of this set holds `<…>`, `...` or `{{` one time in
    // four, which reads as a template elsewhere.
    check: (value) => !/\bunique phrase\b/i.test(value) && bitsPerChar(value) >= 4,
  },
  // Passwords given to a command on its line: `mysql -pSECRET`, `curl -u user:SECRET`, `docker login
  // -p SECRET`, Redis's `requirepass SECRET` (its configuration file, or the server's flag). A value
  // a shell or a template fills in (`-p"$DB_PASS"`) is none.
  secretRule({
    id: 'mysql-command-password',
    type: 'DATABASE_PASSWORD',
    keywords: ['mysql'],
    // The program's name, then its arguments on that line: code's `mysql.connect` and `mysql2` are not it.
    follows: /(?:dump|admin|import|show|check|sh)?[ \t]/iy,
    pattern:
      /\bmysql(?:dump|admin|import|show|check|sh)?(?=[ \t])[^\r\n|;&]{0,200}?[ \t]-p["']?(?<value>[^\s"'`$]{4,128})(?=[\s"'`]|$)/g,
    confidence: 0.7,
    check: (value) => bitsPerChar(value) >= 2,
  }),
  secretRule({
    id: 'curl-user-password',
    type: 'SECRET',
    keywords: ['curl '],
    pattern:
      /\bcurl(?=[ \t])[^\r\n|;&]{0,400}?[ \t](?:-u|--user)(?:[ \t]{1,8}|=)["']?[^\s:"'$]{1,128}:(?<value>[^\s"'`$@]{3,256})(?=[\s"'`]|$)/g,
    confidence: 0.6,
    check: (value) => bitsPerChar(value) >= 2,
  }),
  secretRule({
    id: 'docker-login-password',
    type: 'SECRET',
    keywords: ['docker login'],
    pattern:
      /\bdocker login\b[^\r\n|;&]{0,200}?[ \t](?:-p|--password)(?:[ \t]{1,8}|=)["']?(?<value>[^\s"'`$]{4,256})(?=[\s"'`]|$)/g,
    confidence: 0.65,
    check: (value) => bitsPerChar(value) >= 2,
  }),
  secretRule({
    id: 'redis-requirepass',
    type: 'DATABASE_PASSWORD',
    keywords: ['requirepass'],
    pattern: /\brequirepass["']?[ \t,"']{1,8}(?<value>[^\s"'`$]{4,256})(?=[\s"'`]|$)/gi,
    confidence: 0.65,
    // `foobared` is the example in Redis's own configuration file.
    check: (value) => value !== 'foobared' && bitsPerChar(value) >= 2,
  }),
  // A `.netrc` entry (`machine HOST login USER password SECRET`, on one line or several), as curl,
  // git, ftp and Heroku's command line read it.
  secretRule({
    id: 'netrc-password',
    type: 'SECRET',
    keywords: ['machine '],
    // A host, then one of the entry's words: prose's `state machine is` opens no window.
    follows: /[ \t]{0,8}\S{1,253}[ \t\r\n]{1,16}(?:login|account|port|password)[ \t]/iy,
    pattern:
      /\bmachine[ \t]{1,8}\S{1,253}(?:[ \t\r\n]{1,16}(?:login|account|port)[ \t]{1,8}\S{1,256}){0,3}[ \t\r\n]{1,16}password[ \t]{1,8}(?<value>\S{3,256})/g,
    confidence: 0.7,
    // Not a template's field (`{self.password}`), nor an entry for a documentation host.
    check: (value, { line }) =>
      !/[{}$]/.test(value) &&
      !/\bmachine[ \t]+(?:\S+\.)?example\.(?:com|org|net)\b/i.test(line) &&
      bitsPerChar(value) >= 2,
  }),
  // A password's hash, as system and web server password files (`/etc/shadow`, `.htpasswd`), LDAP
  // entries and applications' user tables and seeds keep it: bcrypt, the crypt schemes of glibc and
  // libxcrypt (MD5, SHA-256, SHA-512, yescrypt), Apache's MD5 and SHA-1, LDAP's SHA forms, Argon2
  // (PHC string) and Django's PBKDF2. Not the password, but a copy anyone may guess at offline, as
  // fast as their hardware goes.
  {
    id: 'password-hash',
    category: 'secret',
    type: 'PASSWORD_HASH',
    keywords: [
      '$2a$',
      '$2b$',
      '$2y$',
      '$2x$',
      '$1$',
      '$apr1$',
      '$y$',
      '$gy$',
      '$sha1$',
      '$argon2',
      // Escaped from double quotes: `\$2b\$…`; a digit stands for any digit.
      '\\$1',
      '\\$apr1',
      '\\$y\\$',
      '\\$gy\\$',
      '\\$argon2',
      '\\$sha1',
      'pbkdf2_sha',
      'argon2$',
      'bcrypt$',
      'bcrypt_sha256$',
      'scrypt$',
      '{sha',
      '{ssha',
      '{md5}',
      '{smd5}',
      '{pbkdf2',
      'scram-sha-256$',
      'password *',
      "password '*",
      'password "*',
    ],
    pattern: new RegExp(`(?<![\\w$./+])(?<value>${PASSWORD_HASH_FORMS.join('|')})(?![\\w./+=$])`, 'g'),
    confidence: 0.7,
    // What follows the scheme's last `$` (or `}`) is the hash, random, never a word; the salt and
    // the hash are tried as placeholders (`$1$xxxxxxxx$…` in a manual), never the scheme's mark
    // (`$apr1$`, `{SHA}`), which reads as a shell's variable.
    check: (value) => {
      const hash = value.slice(Math.max(value.lastIndexOf('$'), value.indexOf('}')) + 1);
      const parts = value.split(/[$}:\\]/).filter((part) => part.length >= 8 && /[A-Za-z]/.test(part));
      return !parts.some(isPlaceholder) && bitsPerChar(hash) >= 3.5;
    },
  },
  // A `Key` in .NET's settings (`"Jwt": { "Key": "…" }` in `appsettings.Production.json`, a
  // `"SigningKey"`, `"Jwt:Key"` in the user secrets' `secrets.json`, `"Jwt__Key"` as an environment
  // variable in `launchSettings.json`): names too common elsewhere to read as secret.
  secretRule({
    id: 'dotnet-settings-key',
    type: 'SECRET',
    keywords: ['key"'],
    files: /(?:^|\/)(?:appsettings(?:\.[\w-]{1,64}){0,3}|secrets|launchSettings)\.json$/i,
    pattern:
      /"(?:[\w.-]{1,64}(?::|__)){0,8}(?:Issuer)?(?:Signing|Security|Encryption|Aes|Hmac|Jwt|Secret|Api|Master|Private|Client|Access|Auth|License|Crypto|Symmetric)?Key"[ \t]{0,8}:[ \t]{0,8}"(?<value>[^"\\\s]{16,512})"/gi,
    confidence: 0.6,
    // A key is random: hex (a UUID's too), letters and digits of one run, or letters of both cases
    // with digits or marks; not a name made of words and numbers, as a cache's, a feature's or a
    // job's key is (`orders-by-customer-v2`, `FixedWindow10PerMinute`, `Welcome.Message.Title2`).
    check: (value) =>
      /^[0-9a-f-]+$/i.test(value)
        ? bitsPerChar(value) >= 3
        : bitsPerChar(value) >= 3.5 &&
          /\d/.test(value) &&
          !/^(?:[A-Z][a-z]+|[A-Z]{1,3}\d*|\d+|\.)+$/.test(value) &&
          (/^[a-z0-9]+$/i.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value))),
  }),
  // An app password for mail (Google's: sixteen lower-case letters, shown in four groups) under a
  // mail server's password (`spring.mail.password=`, `EMAIL_HOST_PASSWORD = '… … … …'`, PHPMailer's
  // `$mail->Password`, `smtp_pass`, `imap_pass`): random letters, which other rules read as a word.
  secretRule({
    id: 'mail-app-password',
    type: 'SECRET',
    keywords: ['mail', 'smtp', 'imap'],
    follows: /[\w.>-]{0,30}?pass/iy,
    pattern:
      /(?:mail|smtp|imap)[\w.>-]{0,30}?pass(?:word|wd)?["']?\]?[ \t]{0,8}(?::=|=>|=|:|[ \t])[ \t]{0,8}["']?(?<value>[a-z]{4}(?<gap> ?)[a-z]{4}\k<gap>[a-z]{4}\k<gap>[a-z]{4})(?![\w-])/gi,
    confidence: 0.5,
    check: judgeAppPassword,
  }),
  // Any `scheme://user:password@host` the database rules do not name (http, smtp, s3, ...).
  secretRule({
    id: 'generic-url-password',
    type: 'URL_PASSWORD',
    keywords: ['://'],
    pattern:
      /(?<![A-Za-z0-9+.-])[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:/@"'`<>]{0,128}:(?<value>[^\s@/"'`<>]{3,256})@[A-Za-z0-9_.[\]-]{1,253}/gi,
    // Addresses are everywhere in code, those with a password seldom: the pattern is tried only
    // before a `://` that a user (or none), a `:`, a password and an `@` follow, its scheme at most 21
    // characters earlier.
    locator: /:\/\/[^\s:/@"'`<>]{0,128}:[^\s@/"'`<>]{3,256}@/g,
    lead: 21,
    confidence: 0.6,
    check: (value, context) => {
      if (isUserName(value, context.line)) return false;
      return /@(?:localhost|127\.0\.0\.1)\b/.test(context.line) ? 0.35 : bitsPerChar(value) >= 2.5;
    },
  }),
  // A Kubernetes Secret's `data:` holds every value in base64, under any name (`DATABASE_URL`, not
  // only a name that says secret): each is read as what it encodes, and stands only where another
  // rule finds a secret in that (the connection string's password, the provider's token). The
  // manifest's `kind: Secret` may come before its data or after it (`kubectl get -o yaml` sorts).
  secretRule({
    id: 'kubernetes-secret-data',
    type: 'SECRET',
    keywords: ['kind: secret'],
    near: 4096,
    pattern: /^[ \t]{1,16}[\w.-]{1,253}:[ \t]{0,8}["']?(?<value>[A-Za-z0-9+/]{8,8192}={0,2})["']?[ \t]*$/gm,
    confidence: 0.5,
    decodes: base64Text,
    decodedOnly: true,
  }),
  // `Authorization: Bearer ...` and `Authorization: Basic base64(user:password)` (RFC 6750, RFC 7617).
  secretRule({
    id: 'generic-bearer-token',
    type: 'BEARER_TOKEN',
    keywords: ['bearer '],
    // The scheme's name is case-insensitive (RFC 9110): `authorization: bearer …` is as good.
    pattern: /\bbearer {1,40}(?<value>[A-Za-z0-9._~+/-]{20,2000}={0,2})/gi,
    confidence: 0.6,
    check: (value) => bitsPerChar(value) >= 3.5,
  }),
  // The header as code, configuration and a Dockerfile's `ENV AUTHORIZATION Basic …` (its older
  // form, the name and the value apart by a space) write it.
  secretRule({
    id: 'generic-basic-auth-header',
    type: 'BASIC_AUTH',
    keywords: ['basic '],
    pattern:
      /(?<![A-Za-z0-9])Authorization["']?(?:\s{0,40}[:=,]\s{0,40}|(?<=^[ \t]{0,40}ENV[ \t]{1,40}[\w.-]{0,30}Authorization)[ \t]{1,40})["']?Basic {1,40}(?<value>[A-Za-z0-9+/]{8,400}={0,2})/gim,
    confidence: 0.75,
    check: (value) => {
      try {
        const decoded = atob(value);
        return (
          /^[^:\s]{1,128}:[^\s]{3,}$/.test(decoded) &&
          !/^(?:user(?:name)?|admin):(?:pass(?:word)?)$/i.test(decoded)
        );
      } catch {
        return false;
      }
    },
  }),
];
