// Databases and data services: connection strings that carry a password, and the keys of hosted
// databases. A connection string's value is its password alone, so the report can point at it.

import type { DetectionRule } from '../detect.ts';
import { isUserName } from './generic.ts';
import { secretRule, token } from './rule.ts';

/** One field of a `.pgpass` line: `:` and `\\` inside it are escaped with a backslash. */
const PGPASS_FIELD = String.raw`(?:[^:\\\r\n]|\\.)`;

/** A local host is where examples and development setups point; a password there matters less. */
function byHost(value: string, context: { line: string }): boolean | number {
  if (isUserName(value, context.line)) return false;
  return /@(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)\b/.test(context.line) ? 0.6 : 0.9;
}

/** `scheme://user:password@host`: the password is the value. */
function url(id: string, type: string, schemes: string, keywords: readonly string[]): DetectionRule {
  return secretRule({
    id,
    type,
    keywords,
    pattern: new RegExp(
      `(?<![A-Za-z0-9+.-])(?:${schemes})://[^\\s:/@"'\`]{0,128}:(?<value>[^\\s@/"'\`]{3,256})@[A-Za-z0-9_.\\[\\]-]{1,253}`,
      'g',
    ),
    confidence: 0.9,
    check: byHost,
  });
}

export const DATABASE_RULES: readonly DetectionRule[] = [
  url('postgres-connection-password', 'DATABASE_PASSWORD', 'postgres(?:ql)?(?:\\+[a-z0-9]{1,20})?', [
    'postgres',
  ]),
  url('mysql-connection-password', 'DATABASE_PASSWORD', 'mysql(?:\\+[a-z0-9]{1,20})?|mariadb', [
    'mysql',
    'mariadb',
  ]),
  url('mongodb-connection-password', 'DATABASE_PASSWORD', 'mongodb(?:\\+srv)?', ['mongodb']),
  url('redis-connection-password', 'DATABASE_PASSWORD', 'rediss?|valkey', ['redis', 'valkey']),
  url('amqp-connection-password', 'BROKER_PASSWORD', 'amqps?', ['amqp']),
  url('clickhouse-connection-password', 'DATABASE_PASSWORD', 'clickhouse(?:\\+[a-z0-9]{1,20})?', [
    'clickhouse',
  ]),
  url('neo4j-connection-password', 'DATABASE_PASSWORD', 'neo4j(?:\\+s|\\+ssc)?|bolt(?:\\+s|\\+ssc)?', [
    'neo4j',
    'bolt',
  ]),
  url('sqlserver-url-password', 'DATABASE_PASSWORD', 'sqlserver|mssql', ['sqlserver', 'mssql']),
  url('snowflake-connection-password', 'DATABASE_PASSWORD', 'snowflake', ['snowflake']),
  url('couchdb-connection-password', 'DATABASE_PASSWORD', 'couchdb', ['couchdb']),
  url('cockroachdb-connection-password', 'DATABASE_PASSWORD', 'cockroachdb', ['cockroachdb']),
  url('mqtt-connection-password', 'BROKER_PASSWORD', 'mqtts?', ['mqtt']),
  url('ldap-bind-password', 'DIRECTORY_PASSWORD', 'ldaps?', ['ldap']),
  url('ftp-connection-password', 'FTP_PASSWORD', 's?ftp', ['ftp']),
  // ADO.NET and ODBC: `Server=...;User Id=...;Password=...;`.
  secretRule({
    id: 'ado-connection-string-password',
    type: 'DATABASE_PASSWORD',
    keywords: ['password=', 'pwd='],
    pattern:
      /(?:Server|Data Source|Host|Address)\s{0,40}=[^;"'\n]{1,200};(?:[^;"'\n]{0,200};){0,8}?\s{0,40}(?:Password|Pwd)\s{0,40}=\s{0,40}(?<value>[^;"'\s]{3,128})/gi,
    confidence: 0.85,
  }),
  // JDBC: the password in the query (`?user=app&password=...`) or before the host (Oracle thin).
  secretRule({
    id: 'jdbc-url-password',
    type: 'DATABASE_PASSWORD',
    keywords: ['jdbc:'],
    pattern: /jdbc:[a-z0-9:]{2,40}[^\s"'`]{0,300}?[?&;]password=(?<value>[^\s&;"'`]{3,128})/gi,
    confidence: 0.9,
  }),
  secretRule({
    id: 'oracle-thin-password',
    type: 'DATABASE_PASSWORD',
    keywords: ['jdbc:oracle:thin:'],
    pattern: /jdbc:oracle:thin:[A-Za-z0-9_$#]{1,128}\/(?<value>[^\s@"'`]{3,128})@/g,
    confidence: 0.9,
  }),
  // Hosted databases.
  token({
    id: 'planetscale-password',
    type: 'PLANETSCALE_PASSWORD',
    prefix: 'pscale_pw_',
    body: '[A-Za-z0-9_.-]{32,64}',
  }),
  token({
    id: 'planetscale-api-token',
    type: 'PLANETSCALE_TOKEN',
    prefix: 'pscale_tkn_',
    body: '[A-Za-z0-9_.-]{32,64}',
  }),
  token({
    id: 'planetscale-oauth-token',
    type: 'PLANETSCALE_TOKEN',
    prefix: 'pscale_oauth_',
    body: '[A-Za-z0-9_.-]{32,64}',
  }),
  token({ id: 'supabase-access-token', type: 'SUPABASE_TOKEN', prefix: 'sbp_', body: '[a-f0-9]{40}' }),
  token({
    id: 'supabase-secret-key',
    type: 'SUPABASE_KEY',
    prefix: 'sb_secret_',
    body: '[A-Za-z0-9_-]{31,40}',
  }),
  token({ id: 'neon-api-key', type: 'NEON_KEY', prefix: 'napi_', body: '[a-z0-9]{64}' }),
  token({
    id: 'databricks-access-token',
    type: 'DATABRICKS_TOKEN',
    prefix: 'dapi',
    body: '[a-f0-9]{32}(?:-\\d)?',
  }),
  token({
    id: 'airtable-personal-access-token',
    type: 'AIRTABLE_TOKEN',
    prefix: 'pat',
    body: '[A-Za-z0-9]{14}\\.[a-f0-9]{64}',
  }),
  // PostgreSQL's password file (`~/.pgpass`, `%APPDATA%\\postgresql\\pgpass.conf`): a line per
  // server, `host:port:database:user:password`, with no word to find it by but the file's name.
  secretRule({
    id: 'pgpass-password',
    type: 'DATABASE_PASSWORD',
    keywords: [],
    files: /(?:^|\/)(?:\.pgpass|pgpass\.conf)$/,
    pattern: new RegExp(
      `^(?![ \\t]*#)${PGPASS_FIELD}{1,253}:${PGPASS_FIELD}{1,16}:${PGPASS_FIELD}{1,256}:${PGPASS_FIELD}{1,256}:(?<value>${PGPASS_FIELD}{1,256})(?=\\r?$)`,
      'gm',
    ),
    confidence: 0.9,
    // A `*` is a wildcard in the other fields, and no password in this one; a password that is
    // the user's name again (`postgres:postgres`) is a local setup's default, as in a URL.
    check: (value, { line }) => value !== '*' && line.split(/(?<!\\):/)[3] !== value,
  }),
];
