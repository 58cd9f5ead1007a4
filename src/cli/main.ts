// The `svc` command line: owner bootstrap on the local store, tables, revoke, verify and serve.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { createInterface } from 'node:readline/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { Command, CommanderError } from 'commander';
import type { Service } from '../backend/service.ts';
import type { FabricAgent } from '../backend/fabric-inbox.ts';
import { ServiceError } from '../backend/errors.ts';
import { resolveDataDir } from '../config/paths.ts';
import { storeEnvironment, svcArgv, svcCommand } from '../config/command.ts';
import { SCOPES, type Scope } from '../backend/credentials.ts';
import { ops } from '../backend/operations/index.ts';
import { ACTIONS, type Action, type Rule } from '../gate/rules.ts';
import { RuleListSchema } from '../gate/rules-schema.ts';
import { projectRootOf } from '../gate/local.ts';
import type { GateAsk } from '../gate/check.ts';
import type { Decision } from '../gate/engine.ts';
import type { Admit, ConfirmHeld } from '../backend/scan-files.ts';
import { VERDICTS } from '../backend/vocabulary.ts';
import type { Verdict } from '../backend/scan-store.ts';
import type { Finder } from '../backend/scan.ts';
import type { InputOf, Operation, ResultOf } from '../backend/operation.ts';
import { ComputeRequest, GrantRequest, TableSchema } from '../backend/operations/governance.ts';
// The HTTP server, the MCP server and the CSV reader load only for the commands that use them:
// `svc mcp` starts in the client's critical path, and hook processes start this CLI too.
import { MCP_CLIENTS, mcpConfig, type McpClient } from './mcp-config.ts';
import {
  INSTALL_CLIENTS,
  InstallError,
  hookCommand,
  install,
  settingsFile,
  type InstallClient,
} from './hook-install.ts';
import { addAgeCommands } from './age-commands.ts';
import { addShareCommands } from './share-commands.ts';
import { addExposeCommands } from './expose-commands.ts';
import { printable, progressBar, scanJson, scanText } from './scan-report.ts';
import { printableLines } from '../backend/printable.ts';
import type { ScanProgress } from '../backend/scan-folder.ts';

/**
 * Exit codes (docs/CLI.md): 0 done (or allowed), 1 refused or failed, 2 bad usage, 3 a proof did
 * not verify, 4 `agent ask` answered degrade, 5 `agent ask` answered deny.
 */
export const EXIT = { ok: 0, failed: 1, usage: 2, unverified: 3, degrade: 4, deny: 5, found: 6 } as const;

interface JsonFlag {
  json?: boolean;
}

/** The store, the vault and the keys load only for the commands that use them (not `svc mcp`'s start). */
async function openService(): Promise<Service> {
  const { Service } = await import('../backend/service.ts');
  return new Service({ dataDir: dataDir() });
}

/**
 * The data dir, refused with what to do when it is not a folder (SVC_HOME naming a file, say),
 * rather than the error of the first write into it. A missing one is made when the store opens.
 */
function dataDir(): string {
  const dir = resolveDataDir();
  let what: string;
  try {
    if (statSync(dir).isDirectory()) return dir;
    what = 'is a file, not a folder';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOTDIR') return dir;
    what = 'lies inside a file';
  }
  throw new ServiceError(
    'invalid_request',
    process.env.SVC_HOME?.trim()
      ? `SVC_HOME is ${dir}, which ${what}: set SVC_HOME to a folder (svc makes it if it is missing), or unset it to use the default`
      : `svc's data dir ${dir} ${what}: move that file away, or set SVC_HOME to a folder`,
  );
}

/** Refuses a folder where a command takes one file, before anything opens; what else to give is `hint`. */
function refuseFolder(path: string, hint: string): void {
  let folder = false;
  try {
    folder = statSync(path).isDirectory();
  } catch {
    // Not there: the command's own answer says so.
  }
  if (folder) throw new ServiceError('invalid_request', `${path} is a folder: ${hint}`);
}

/**
 * Refuses an `--out FILE` that cannot be written, once the gate allowed writing it and before
 * anything is released: a folder, or a name in a folder that is not there (the release is written
 * beside its destination, then moved in, and would fail on a name of its own).
 */
function refuseOutFile(out: string | undefined): void {
  if (out === undefined || out === '-') return;
  refuseFolder(out, 'give --out a file name in it');
  const folder = dirname(resolve(out));
  let there: boolean;
  try {
    there = statSync(folder).isDirectory();
  } catch {
    there = false;
  }
  if (!there) {
    throw new ServiceError(
      'not_found',
      `--out ${out}: there is no folder ${folder}; make it first, or give a file name in a folder that exists`,
    );
  }
}

function agentToken(): string {
  const token = process.env.SVC_AGENT_TOKEN?.trim();
  if (!token) {
    throw new ServiceError(
      'unauthorized',
      'set SVC_AGENT_TOKEN to an agent grant token (ndca-...); `svc agent grant` prints one',
    );
  }
  return `Bearer ${token}`;
}

/** `--where region=eu` (repeatable): numbers, true, false and null keep their JSON type. */
function collectWhere(value: string, previous: Record<string, string | number | boolean | null> = {}) {
  const at = value.indexOf('=');
  if (at < 1)
    throw new CommanderError(EXIT.usage, 'svc.usage', `--where takes column=value, not \`${value}\``);
  const raw = value.slice(at + 1);
  let parsed: string | number | boolean | null = raw;
  if (/^-?\d+(\.\d+)?$/.test(raw)) parsed = Number(raw);
  else if (raw === 'true' || raw === 'false') parsed = raw === 'true';
  else if (raw === 'null') parsed = null;
  return { ...previous, [value.slice(0, at)]: parsed };
}

function ownerKey(): string {
  const key = process.env.SVC_API_KEY?.trim();
  if (!key) {
    throw new ServiceError(
      'unauthorized',
      'set SVC_API_KEY to an organization key (ndp_...); `svc org create` prints one',
    );
  }
  return `Bearer ${key}`;
}

function print(options: JsonFlag, value: unknown, human: string): void {
  // Names in the lines (of files, of rules' paths) may be anyone's: none may rewrite the terminal.
  process.stdout.write(options.json ? `${JSON.stringify(value)}\n` : `${printableLines(human)}\n`);
}

/** Runs `work` with the finder of the local store (scans, verdicts, plans) and closes the store. */
async function withFinder<T>(work: (find: Finder) => Promise<T>): Promise<T> {
  return await withService(async (service) => {
    const { finderOf } = await import('../backend/scan.ts');
    return await work(finderOf(service.ctx));
  });
}

/** Runs `work` with the local service and closes it: each command is one use. */
async function withService<T>(work: (service: Service) => Promise<T>): Promise<T> {
  const service = await openService();
  try {
    return await work(service);
  } finally {
    service.close();
  }
}

/**
 * Runs `walk` over files, reading each only when the read gate's outcome for an agent's read is one
 * of `admitted`: a command that reads files for the person may have been started by an agent
 * through a shell, and must not read for it what the gate keeps from it. Files a rule asks about
 * are held, and the person is asked once about them all at the walk's end, on the terminal (`reader`
 * names the command in the question); with no terminal to ask on, they are not read.
 */
async function walkAsAgent<T>(
  service: Service,
  admitted: readonly Decision['outcome'][],
  reader: string,
  walk: (admit: Admit, confirm: ConfirmHeld) => Promise<T>,
  alsoAs: readonly Action[] = [],
): Promise<T> {
  const { GateCheck, walkAsAsker, heldQuestion } = await import('../backend/gate-check.ts');
  const gate = new GateCheck({ dataDir: service.dataDir, watch: false, core: () => service.ctx });
  try {
    return await walkAsAsker(
      gate,
      { cwd: process.cwd(), client: 'svc' },
      admitted,
      (admit, asking) => walk(admit, (files) => yesOnTerminal(heldQuestion(files, asking, reader))),
      alsoAs,
    );
  } finally {
    await gate.close();
  }
}

/** Whether a question is on the terminal: progress lines wait until it is answered. */
let questionOpen = false;

/** Whether the person at the terminal says yes; with no terminal to ask on (an agent's shell, a pipe), no. */
async function yesOnTerminal(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return false;
  questionOpen = true;
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  let interrupted = false;
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      // Ctrl-D closes the question unanswered: no yes. Ctrl-C stops the command, as it would
      // anywhere else (the prompt takes it from the process otherwise, and waits on).
      prompt.once('close', () => resolve(undefined));
      prompt.once('SIGINT', () => {
        interrupted = true;
        prompt.close();
      });
      // The question takes the line a progress bar may hold.
      prompt.question(`\r\x1b[Ksvc: ${printable(question)} [y/N] `).then(resolve, () => resolve(undefined));
    });
    return answer !== undefined && /^y(es)?$/i.test(answer.trim());
  } finally {
    prompt.close();
    questionOpen = false;
    if (interrupted) process.kill(process.pid, 'SIGINT');
  }
}

/** Runs one operation on the local store and closes it: each command is one call. */
async function run<Op extends Operation>(
  operation: Op,
  bearer: string | undefined,
  input: InputOf<Op>,
): Promise<ResultOf<Op>> {
  return await withService(
    async (service) => (await service.invoke(operation, bearer, input)) as ResultOf<Op>,
  );
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function collectScope(value: string, previous: string[] = []): string[] {
  if (!(SCOPES as readonly string[]).includes(value)) {
    throw new CommanderError(
      EXIT.usage,
      'svc.usage',
      `--scope must be one of ${SCOPES.join(', ')}, not \`${value}\``,
    );
  }
  return [...previous, value];
}

async function readRowsFile(file: string): Promise<Record<string, unknown>[]> {
  const text = readFileSync(file, 'utf8');
  if (extname(file).toLowerCase() === '.csv') return (await import('../backend/csv.ts')).parseCsv(text);
  const parsed = JSON.parse(text) as unknown;
  const rows = Array.isArray(parsed) ? parsed : (parsed as { rows?: unknown }).rows;
  if (!Array.isArray(rows))
    throw new ServiceError('invalid_request', 'the JSON file must hold an array of row objects');
  return rows as Record<string, unknown>[];
}

/**
 * The project a command's `[path]` or `--project` names (the current folder's without one): the
 * path must be there, or the answer would speak of a project that is not ("no scan of … yet").
 */
function projectNamed(path: string | undefined): string {
  if (path !== undefined && !existsSync(path)) {
    throw new ServiceError(
      'invalid_request',
      `${path} is not there: give a folder of the project, or none for the current one`,
    );
  }
  return projectRootOf(path ?? process.cwd());
}

function describeZod(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || 'input'}: ${i.message}`).join('; ');
}

/** The gate of this computer for one command: rule files read once, nothing watched. */
async function localGate() {
  const { GateCheck } = await import('../backend/gate-check.ts');
  return new GateCheck({
    dataDir: dataDir(),
    watch: false,
    core: () => {
      throw new Error('a command that only tests rules records nothing');
    },
  });
}

/** Who runs this command, as a seal's receipts name them. */
function localUser(): string {
  try {
    return `user:${userInfo().username}`;
  } catch {
    return 'user';
  }
}

/**
 * The read gate's decision on a path, for a command that releases or changes a sealed file. The
 * command may have been started by an agent through a shell, so it is gated as an agent's call
 * would be, and recorded: a rule that asks the person is answered on this terminal, and refused
 * where there is none to ask.
 */
async function gateAdmission(
  service: Service,
  path: string,
  action: Action,
  ask: GateAsk = { kind: 'paths', action, paths: [path] },
) {
  const { GateCheck } = await import('../backend/gate-check.ts');
  const { RulesUnreadable } = await import('../gate/local.ts');
  const { GateUnavailable } = await import('../gate/check.ts');
  const gate = new GateCheck({ dataDir: service.dataDir, watch: false, core: () => service.ctx });
  let recorded;
  try {
    recorded = await gate.check(ask, { cwd: process.cwd(), client: 'svc' });
  } catch (error) {
    if (!(error instanceof RulesUnreadable || error instanceof GateUnavailable)) throw error;
    return {
      allowed: false,
      outcome: 'undecided',
      rule_id: null,
      audit_id: null,
      message: `the read gate cannot decide, so nothing was released: ${error.message}`,
    };
  } finally {
    await gate.close();
  }
  const { decision, receipt_id } = recorded;
  const base = { outcome: decision.outcome, rule_id: decision.rule?.id ?? null, audit_id: receipt_id };
  if (decision.outcome === 'allowed' || decision.outcome === 'limited') return { ...base, allowed: true };
  if (decision.outcome === 'ask' && process.stdin.isTTY && process.stderr.isTTY) {
    const yes = await yesOnTerminal(
      `rule ${decision.rule?.id ?? ''} asks you first${decision.rule?.reason ? ` (${decision.rule.reason})` : ''}: ${action} ${path}?`,
    );
    if (yes) return { ...base, allowed: true };
    return { ...base, allowed: false, message: `you declined: ${path} was not released` };
  }
  const message =
    decision.outcome === 'ask'
      ? `rule ${decision.rule?.id} asks the person before ${path} is released, and there is no terminal to ask on: run the command yourself in a terminal`
      : `${decision.explanation}; to change it: ${decision.to_change}`;
  return { ...base, allowed: false, message };
}

/** A refusal by the gate: said as any failure is, with the exit code of a refusal. */
function refusedByGate(options: JsonFlag, error: unknown): boolean {
  // Only the gate's refusal names its outcome; other refusals (a file svc may not read) exit 1.
  if (!(error instanceof ServiceError) || error.code !== 'forbidden' || !('outcome' in error.details)) {
    return false;
  }
  if (options.json) process.stdout.write(`${JSON.stringify(error.toBody())}\n`);
  process.stderr.write(`svc: ${printableLines(error.message)}\n`);
  process.exitCode = EXIT.deny;
  return true;
}

/** Rules given as JSON text: one rule or an array, checked against the format before anything is sent. */
function parseRulesText(text: string, where: string): Rule[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ServiceError('invalid_request', `${where} is not JSON: docs/RULES.md shows the format`);
  }
  const parsed = RuleListSchema.safeParse(Array.isArray(json) ? json : [json]);
  if (!parsed.success) {
    throw new ServiceError('invalid_request', `${where}: rule ${describeZod(parsed.error)}`);
  }
  return parsed.data;
}

async function addRuleList(list: Rule[], options: JsonFlag): Promise<void> {
  const added = await run(ops.addRules, ownerKey(), { rules: list });
  print(
    options,
    added,
    `added ${added.count} rule(s): ${added.rules.map((r) => r.rule_id).join(', ')} (receipt ${added.receipt_id})`,
  );
}

/**
 * The organization's svc, where the recovery copy is kept: it must live off this computer, or
 * losing the computer would lose it too.
 */
async function organizationService() {
  const base = process.env.SVC_BASE_URL?.trim();
  if (!base) {
    throw new ServiceError(
      'invalid_request',
      "the recovery copy is kept by your organization's svc, off this computer: set SVC_BASE_URL to its address and SVC_API_KEY to an organization key",
    );
  }
  const bearer = ownerKey();
  const { remoteInvoker } = await import('../backend/invoke.ts');
  const invoker = remoteInvoker(base);
  return {
    base,
    call: <Op extends Operation>(operation: Op, input: InputOf<Op>) =>
      invoker.invoke(operation, bearer, input) as Promise<ResultOf<Op>>,
  };
}

/** A recovery error said as the service's errors are, so --json and the exit code treat it alike. */
async function recoveryErrors<T>(work: () => Promise<T>): Promise<T> {
  const { RecoveryError } = await import('../vault/recovery.ts');
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof RecoveryError)) throw error;
    throw new ServiceError(
      error.code === 'invalid_phrase' ? 'invalid_request' : 'sealed_corrupt',
      error.message,
      {
        reason: error.code,
      },
    );
  }
}

/** Seals this data dir's vault backup to a recovery public key and hands it to the organization's svc. */
async function uploadBackup(
  org: Awaited<ReturnType<typeof organizationService>>,
  publicKey: Uint8Array,
): Promise<{ copy_id: string; size_bytes: number; keys: number; seals: number; secrets: number }> {
  const { buildVaultBackup } = await import('../backend/vault-backup.ts');
  const { sealVaultBackup } = await import('../vault/recovery.ts');
  const service = await openService();
  let built;
  try {
    built = await buildVaultBackup(service.ctx);
  } finally {
    service.close();
  }
  const sealed = await sealVaultBackup(publicKey, built.bytes);
  built.bytes.fill(0);
  const copy = await org.call(ops.storeRecoveryCopy, {
    ciphertext_b64: sealed.toString('base64'),
    label: 'svc vault backup',
  });
  return { copy_id: copy.id, size_bytes: copy.size_bytes, ...built.summary };
}

/** The vault entry where this computer keeps the recovery public key it set up (public, not a secret). */
const RECOVERY_PUBKEY_CREDENTIAL = 'recovery-pubkey';

/** This copy of svc's version, as its package.json says. */
function packageVersion(): string {
  return (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
}

export function buildProgram(): Command {
  const program = new Command('svc')
    .description('svc: governed access for AI agents')
    .version(packageVersion(), '-V, --version', "print svc's version")
    .showHelpAfterError()
    // An option belongs to the command it follows: `svc scan feedback list --json` is the list's
    // --json, not `svc scan`'s.
    .enablePositionalOptions()
    .exitOverride();

  program
    .command('serve')
    .description('serve the HTTP API on the embedded store')
    .option('--host <host>', 'address to bind', '127.0.0.1')
    .option('--port <port>', 'port to bind (0 picks a free one)', '8787')
    .option('--allowed-host <name>', 'extra host name accepted in Host/Origin', collect, [])
    .option('--json', 'print where everything is as one JSON line')
    .action(async (options: JsonFlag & { host: string; port: string; allowedHost: string[] }) => {
      const port = Number(options.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new CommanderError(EXIT.usage, 'svc.usage', `--port must be 0 to 65535, not ${options.port}`);
      }
      const publicUrl = process.env.SVC_PUBLIC_URL?.trim() || undefined;
      if (publicUrl && !/^https?:\/\/[^/]+/i.test(publicUrl)) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          `SVC_PUBLIC_URL must be an http(s) address such as https://links.example.com, not ${publicUrl}`,
        );
      }
      const { serve } = await import('../entry/serve.ts');
      const { recordServing } = await import('../backend/share-client.ts');
      const service = await openService();
      const server = await serve({
        service,
        host: options.host,
        port,
        allowedHosts: options.allowedHost,
        publicUrl,
      });
      // Links made on this computer open here: `svc send` reads where this server listens.
      const forget = recordServing(service.dataDir, server.url);
      const where = {
        url: server.url,
        data_dir: service.dataDir,
        openapi: `${server.url}/openapi.json`,
        keys: `${server.url}/.well-known/svc-keys.json`,
        mcp: `${server.url}/mcp`,
      };
      print(
        options,
        where,
        [
          `svc is serving on ${server.url}`,
          `  data dir:  ${where.data_dir}`,
          `  OpenAPI:   ${where.openapi}`,
          `  keys:      ${where.keys}`,
          `  MCP:       ${where.mcp} (Streamable HTTP), ${server.url}/sse (SSE)`,
          `  first run: ${svcCommand('org', 'create', '--name', 'My Org', '--json')}   (prints an organization key)`,
        ].join('\n'),
      );
      const stop = (signal: string) => {
        process.stderr.write(`svc: ${signal}, finishing requests in flight\n`);
        forget();
        void server.close().then(() => process.exit(0));
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });

  const org = program.command('org').description('organizations');
  org
    .command('create')
    .description('create an organization, its first key (scope *) and the demo table')
    .requiredOption('--name <name>', 'organization name')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag & { name: string }) => {
      const name = options.name.trim();
      if (!name || name.length > 120)
        throw new CommanderError(EXIT.usage, 'svc.usage', '--name must be 1 to 120 characters');
      const created = await run(ops.createOrg, undefined, { name });
      print(
        options,
        created,
        `organization ${created.org_id}\napi key (shown once): ${created.api_key}\nkey id: ${created.key_id}`,
      );
    });

  const key = program.command('key').description('organization API keys');
  key
    .command('revoke')
    .description('revoke an organization key by its key_id (printed by `key create` and `org create`)')
    .argument('<key_id>')
    .option('--json', 'print JSON')
    .action(async (keyId: string, options: JsonFlag) => {
      const result = await run(ops.revokeApiKey, undefined, { key_id: keyId });
      print(options, result, `revoked ${result.key_id}`);
    });
  key
    .command('create')
    .description('create an organization key; without --org it is bound to no organization')
    .option('--org <org_id>', 'organization the key is bound to')
    .option('--scope <scope>', `scope, repeatable: ${SCOPES.join(', ')}`, collectScope)
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag & { org?: string; scope?: string[] }) => {
      const scopes = (options.scope?.length ? options.scope : ['*']) as Scope[];
      const created = await run(ops.createApiKey, undefined, { org_id: options.org ?? null, scopes });
      print(options, created, `api key (shown once): ${created.api_key}\nkey id: ${created.key_id}`);
    });

  const agent = program.command('agent').description('agents and their grants');
  agent
    .command('revoke')
    .description(
      'end every active credential of an agent (by handle) or one grant (by jti); needs SVC_API_KEY',
    )
    .argument('<handle-or-jti>')
    .option('--json', 'print JSON')
    .action(async (target: string, options: JsonFlag) => {
      const result = await run(ops.revokeAgent, ownerKey(), { target });
      print(
        options,
        result,
        `revoked ${result.target} ${result.handle}: ${result.revoked_jtis.length} grant(s) ended` +
          (result.receipt_id ? `, receipt ${result.receipt_id}` : ' (nothing was active)'),
      );
    });

  agent
    .command('grant')
    .description('create an agent and its scoped grant; prints the grant token once; needs SVC_API_KEY')
    .requiredOption('--agent <label>', 'human label; becomes the handle')
    .requiredOption('--column <name>', 'readable column (repeatable)', collect)
    .option('--table <name>', 'table (default agent_demo_records)')
    .option('--classification <class>', 'granted classification (repeatable)', collect)
    .option('--where <column=value>', 'equality filter on a plaintext column (repeatable)', collectWhere)
    .option('--ttl-seconds <n>', 'lifetime in seconds (at least 60; default one day)')
    .option('--json', 'print JSON')
    .action(
      async (
        options: JsonFlag & {
          agent: string;
          column: string[];
          table?: string;
          classification?: string[];
          where?: Record<string, string | number | boolean | null>;
          ttlSeconds?: string;
        },
      ) => {
        const parsed = GrantRequest.safeParse({
          agent: options.agent,
          columns: options.column,
          table: options.table,
          classifications: options.classification,
          where: options.where,
          ttl_seconds: options.ttlSeconds === undefined ? undefined : Number(options.ttlSeconds),
        });
        if (!parsed.success) throw new ServiceError('invalid_request', describeZod(parsed.error));
        const grant = await run(ops.createGrant, ownerKey(), parsed.data);
        print(
          options,
          grant,
          `agent ${grant.handle} (${grant.agent_id}), grant ${grant.jti}, expires ${grant.expires_at}\n` +
            `grant token (shown once; give it to the agent as SVC_AGENT_TOKEN): ${grant.grant_token}`,
        );
      },
    );
  agent
    .command('ask')
    .description(
      'may this agent do this? allow, degrade or deny plus a signed receipt; needs SVC_AGENT_TOKEN',
    )
    .option('--column <name>', 'column (repeatable; default: the grant columns)', collect)
    .option('--action <action>', 'read, send or classify', 'read')
    .option('--table <name>', 'table (default: the grant table)')
    .option('--where <column=value>', 'equality filter (repeatable)', collectWhere)
    .option('--purpose <text>', 'why')
    .option('--external', 'for send: the destination is outside the organization')
    .option('--json', 'print JSON')
    .action(
      async (
        options: JsonFlag & {
          column?: string[];
          action: string;
          table?: string;
          where?: Record<string, string | number | boolean | null>;
          purpose?: string;
          external?: boolean;
        },
      ) => {
        const parsed = ComputeRequest.safeParse({
          action: options.action,
          columns: options.column,
          table: options.table,
          where: options.where,
          purpose: options.purpose,
          destination: options.external ? { external: true } : undefined,
        });
        if (!parsed.success) throw new ServiceError('invalid_request', describeZod(parsed.error));
        const decision = await run(ops.computeDecision, agentToken(), { ...parsed.data, receipt: 'true' });
        const withheld = decision.withheld.columns.length
          ? `; withheld ${decision.withheld.columns.join(', ')}`
          : '';
        print(
          options,
          decision,
          `${decision.decision}: allowed ${decision.allowed.columns.join(', ') || 'nothing'}${withheld}\nreceipt ${decision.proof_id}`,
        );
        process.exitCode =
          decision.decision === 'allow'
            ? EXIT.ok
            : decision.decision === 'degrade'
              ? EXIT.degrade
              : EXIT.deny;
      },
    );

  const inbox = program
    .command('inbox')
    .description(
      "this agent's Fabric inbox; needs SVC_AGENT_TOKEN, keeps the agent's key in this computer's vault",
    );
  /** Runs `work` as the agent of SVC_AGENT_TOKEN on the local store, its Fabric key in this vault. */
  const asFabricAgent = async <T>(work: (agent: FabricAgent, service: Service) => Promise<T>): Promise<T> => {
    const bearer = agentToken();
    const service = await openService();
    try {
      const { fabricKeyStore } = await import('../backend/fabric-inbox.ts');
      return await work({ invoker: service.invoker, bearer, keys: fabricKeyStore(service.ctx) }, service);
    } finally {
      service.close();
    }
  };
  inbox
    .command('address')
    .description('the Fabric address of this agent, enrolling a key of this computer on first use')
    .option('--json', 'print JSON: kid, handle, enrolled_now, key_location')
    .action(async (options: JsonFlag) => {
      const { ensureAddress } = await import('../backend/fabric-inbox.ts');
      const address = await asFabricAgent((agent) => ensureAddress(agent));
      print(options, address, `${address.kid}${address.enrolled_now ? ' (enrolled now)' : ''}`);
    });
  inbox
    .command('list')
    .description('envelopes addressed to this agent, metadata only')
    .option('--json', 'print JSON: kid, count, items')
    .action(async (options: JsonFlag) => {
      const { listArrivals } = await import('../backend/fabric-inbox.ts');
      const listed = await asFabricAgent((agent) => listArrivals(agent));
      const lines = listed.items.map(
        (i) =>
          `${i.id}  from ${i.sender_kid}  ${i.status}  ${i.fetches_remaining} left  ${i.size_bytes} B  ${i.filename_hint ?? i.content_type_hint ?? ''}${i.purpose ? `  ${i.purpose}` : ''}`,
      );
      print(options, listed, [`${listed.count} envelope(s) for ${listed.kid}`, ...lines].join('\n'));
    });
  inbox
    .command('senders')
    .description("the Fabric grants naming this agent's address: who may send to it")
    .option('--json', 'print JSON: kid, count, grants')
    .action(async (options: JsonFlag) => {
      const { permittedSenders } = await import('../backend/fabric-inbox.ts');
      const listed = await asFabricAgent((agent) => permittedSenders(agent));
      const lines = listed.grants.map(
        (g) =>
          `${g.grant_id}  ${g.status}  until ${g.expires_at}  ${g.allowed_sender_kids.join(',') || 'any agent of ' + g.issuer_org_id}${g.label ? `  ${g.label}` : ''}`,
      );
      print(options, listed, [`${listed.count} grant(s) for ${listed.kid}`, ...lines].join('\n'));
    });
  inbox
    .command('open')
    .description('fetch one envelope through the gate and decrypt it here: text to stdout, or --out')
    .argument('<id>')
    .option('--out <file>', 'write the content to FILE (which must not exist), or to stdout with -')
    .option(
      '--json',
      'print one JSON object: id, sender_kid, bytes, receipt_id, fetches_remaining (and text)',
    )
    .action(async (id: string, options: JsonFlag & { out?: string }) => {
      if (options.out === '-' && options.json) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          '--json and --out - both write to stdout: choose one',
        );
      }
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          'the envelope id is a UUID, as `svc inbox list` shows',
        );
      }
      const { arrival, asText, fetchAndOpen, textualHint } = await import('../backend/fabric-inbox.ts');
      const { existsSync, writeFileSync } = await import('node:fs');
      const out = options.out === undefined || options.out === '-' ? options.out : resolve(options.out);
      let opened;
      try {
        opened = await asFabricAgent(async (agent, service) => {
          const item = await arrival(agent, id);
          // Decided before the fetch, so a refusal here never spends one of the envelope's fetches.
          if (out === undefined && !textualHint(item.content_type_hint)) {
            throw new ServiceError(
              'invalid_request',
              `${id} holds ${item.content_type_hint ?? 'content'} that is not text: give --out FILE or --out -; nothing was fetched`,
            );
          }
          if (out !== undefined && out !== '-') {
            if (existsSync(out)) throw new ServiceError('conflict', `${out} exists: give a new file`);
            const admitted = await gateAdmission(service, out, 'write');
            if (!admitted.allowed) {
              throw new ServiceError(
                'forbidden',
                admitted.message ?? `the read gate refused writing ${out}`,
                {
                  outcome: admitted.outcome,
                  rule_id: admitted.rule_id,
                  receipt_id: admitted.audit_id,
                },
              );
            }
          }
          return await fetchAndOpen(agent, id);
        });
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'fabric_denied') {
          if (options.json) process.stdout.write(`${JSON.stringify(error.toBody())}\n`);
          process.stderr.write(`svc: ${error.message} (receipt ${String(error.details.receipt_id)})\n`);
          process.exitCode = EXIT.deny;
          return;
        }
        if (refusedByGate(options, error)) return;
        throw error;
      }
      const { plaintext, ...about } = opened;
      const said = `opened ${about.id} from ${about.sender_kid} (${plaintext.length} bytes, receipt ${about.receipt_id}, ${about.fetches_remaining} fetch(es) left)`;
      if (out === '-') {
        await new Promise<void>((done, fail) =>
          process.stdout.write(plaintext, (error) => (error ? fail(error) : done())),
        );
        process.stderr.write(`svc: ${said}\n`);
        return;
      }
      if (out !== undefined) {
        writeFileSync(out, plaintext, { flag: 'wx', mode: 0o600 });
        print(options, { ...about, bytes: plaintext.length, out_path: out }, `${said} to ${out}`);
        return;
      }
      const text = asText(plaintext);
      if (text === null) {
        throw new ServiceError(
          'invalid_request',
          `${about.id} was fetched (receipt ${about.receipt_id}) but is not text; ${about.fetches_remaining} fetch(es) left: open it again with --out`,
        );
      }
      if (options.json) print(options, { ...about, bytes: plaintext.length, text }, '');
      else {
        process.stderr.write(`svc: ${said}\n`);
        process.stdout.write(text);
      }
    });

  const table = program.command('table').description('registered tables; needs SVC_API_KEY');
  table
    .command('register')
    .description(
      'register a table from a JSON schema file {name, columns: [{name, classification, storage}]}',
    )
    .requiredOption('--file <schema.json>', 'table schema file')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag & { file: string }) => {
      const parsed = TableSchema.safeParse(JSON.parse(readFileSync(options.file, 'utf8')));
      if (!parsed.success) {
        throw new ServiceError(
          'invalid_request',
          `schema file: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
        );
      }
      const result = await run(ops.registerTable, ownerKey(), parsed.data);
      print(options, result, `registered ${result.name} with ${result.columns.length} column(s)`);
    });
  table
    .command('load')
    .description('load rows into a registered table from a .csv or .json file')
    .argument('<table>')
    .requiredOption('--file <rows>', 'rows file (.csv with a header row, or .json array of objects)')
    .option('--json', 'print JSON')
    .action(async (name: string, options: JsonFlag & { file: string }) => {
      const rows = await readRowsFile(options.file);
      const result = await run(ops.loadRows, ownerKey(), { name, rows });
      print(
        options,
        result,
        `loaded ${result.loaded} row(s) into ${result.table} (${result.total_rows} in all)`,
      );
    });

  program
    .command('doctor')
    .description('where svc keeps its data and keys on this computer, and why; never a key or a value')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const service = await openService();
      try {
        const { checkup } = await import('../backend/doctor.ts');
        const c = await checkup(service);
        print(
          options,
          c,
          [
            `data dir: ${c.data_dir.path} (${c.data_dir.chosen_by})`,
            `store: ${c.store.file}, ${c.store.bytes} bytes, ${c.store.migrations} migrations`,
            `keys: ${c.keys.kind === 'keychain' ? 'the OS keychain' : 'key files'} at ${c.keys.location} (${c.keys.why})`,
            `signing key: ${c.signing_kid}`,
            `sealed files: ${c.sealed_files.sealed} sealed, ${c.sealed_files.opened} opened in place (their keys kept), ${c.sealed_files.missing} gone from their place, ${c.sealed_files.revoked} revoked, ${c.sealed_files.pending} unfinished`,
            `vault secrets: ${c.vault_secrets}; clean copies with a kept mapping: ${c.clean_copy_mappings}`,
          ].join('\n'),
        );
      } finally {
        service.close();
      }
    });

  program
    .command('verify')
    .description('verify a proof (receipt or audit row) by id against the local store')
    .argument('<proof_id>')
    .option('--json', 'print JSON')
    .action(async (proofId: string, options: JsonFlag) => {
      const verdict = await run(ops.verifyProof, undefined, { proof_id: proofId });
      print(
        options,
        verdict,
        verdict.found
          ? `${proofId}: authentic=${verdict.authentic} unaltered=${verdict.unaltered} signer=${verdict.signer?.signing_kid ?? 'none'}`
          : `${proofId}: no such proof`,
      );
      if (!verdict.authentic || !verdict.unaltered) process.exitCode = EXIT.unverified;
    });

  program
    .command('mcp')
    .description('run the MCP tool server over stdio (or print client configuration)')
    .option('--print-config', 'print ready-to-paste configuration for an MCP client')
    .option('--client <client>', `client format: ${MCP_CLIENTS.join(', ')}`, 'claude-desktop')
    .option('--json', 'with --print-config or --bundle: print the result as JSON')
    .option('--bundle', 'build the fast-start bundle of `svc mcp` (docs/MCP.md, Start-up)')
    .option('--quiet', 'with --bundle: print nothing')
    .action(
      async (
        options: JsonFlag & { printConfig?: boolean; client: string; bundle?: boolean; quiet?: boolean },
      ) => {
        // A bad --client is refused whatever else is asked, rather than ignored by a server that starts.
        if (!(MCP_CLIENTS as readonly string[]).includes(options.client)) {
          throw new CommanderError(
            EXIT.usage,
            'svc.usage',
            `--client must be one of ${MCP_CLIENTS.join(', ')}`,
          );
        }
        if (options.bundle) {
          const { buildMcpBundle } = await import('../entry/hook-bundle.ts');
          const report = await buildMcpBundle(dataDir());
          if (!options.quiet) print(options, report, bundleSummary(report, "svc mcp's"));
          return;
        }
        if (options.printConfig) {
          const config = mcpConfig(options.client as McpClient);
          print(options, { client: options.client, config }, config);
          return;
        }
        await serveMcpOverStdio();
      },
    );

  const scan = program
    .command('scan')
    .description(
      'find secrets and personal data in a folder or a file (docs/SCAN.md); exit 6 when anything is found',
    )
    .argument('<path>')
    .option(
      '--json',
      'print one JSON object: findings, files_scanned, bytes_scanned, scan_id, silenced, skipped',
    )
    .action(async (path: string, options: JsonFlag) => {
      // A progress bar on a terminal only: with --json stdout holds the one object and nothing else.
      const live = !options.json && process.stderr.isTTY;
      let drawn = 0;
      let last: ScanProgress | undefined;
      const kept = await withService(async (service) => {
        const { finderOf } = await import('../backend/scan.ts');
        // It reads only what the read gate lets an agent read, as svc_scan_folder does: a protected
        // file's fingerprints would let an agent test guesses at its values (scan guesses, compare).
        // Files a rule asks about are read after the person's yes on this terminal.
        try {
          return await walkAsAgent(
            service,
            ['allowed', 'limited'],
            'svc scan',
            (admit, confirm) =>
              finderOf(service.ctx).scan(path, {
                scannedBy: 'svc scan',
                admit,
                confirm,
                onProgress: (progress) => {
                  if (!live) return;
                  last = progress;
                  if (questionOpen) return;
                  // At most ten redraws a second: one per file of thousands would flood the terminal.
                  if (Date.now() - drawn < 100) return;
                  drawn = Date.now();
                  process.stderr.write(`\r${progressBar(progress)}\x1b[K`);
                },
              }),
            // A scan is a search as well as a read, as for svc_scan_folder.
            ['search'],
          );
        } finally {
          // The bar as it ended (all of it, when the scan finished), and the line ended.
          if (live && last) process.stderr.write(`\r${progressBar(last)}\x1b[K\n`);
        }
      });
      // A file scanned alone is named by the path given; a folder's files by the folder's path.
      const given = statSync(path).isDirectory() ? (file: string) => join(path, file) : () => path;
      const elsewhere = projectRootOf(process.cwd()) !== kept.project;
      print(options, scanJson(kept), scanText(kept, given, elsewhere));
      if (kept.findings.length > 0) process.exitCode = EXIT.found;
    });
  const feedback = scan
    .command('feedback')
    .description('verdicts on findings, by fingerprint, honoured by later scans; promote needs SVC_API_KEY');
  feedback
    .command('mark')
    .description('false_positive or accepted_risk leave a finding out of later scans; confirmed keeps it in')
    .argument('<fingerprint>', 'as `svc scan` prints it')
    .argument('<verdict>', VERDICTS.join(' | '))
    .option('--reason <text>', 'why, for whoever reads the verdict later')
    .option('--project <dir>', 'a folder of the project (default: the current one)')
    .option('--json', 'print JSON')
    .action(
      async (
        fingerprint: string,
        verdict: string,
        options: JsonFlag & { reason?: string; project?: string },
      ) => {
        if (!(VERDICTS as readonly string[]).includes(verdict)) {
          throw new CommanderError(
            EXIT.usage,
            'svc.usage',
            `the verdict is one of ${VERDICTS.join(', ')}, not \`${verdict}\``,
          );
        }
        const entry = await withFinder((find) =>
          find.mark({
            project: projectNamed(options.project),
            fingerprint,
            verdict: verdict as Verdict,
            reason: options.reason,
            decided_by: 'a person at this computer, with svc scan feedback',
          }),
        );
        print(
          options,
          entry,
          `kept ${entry.feedback_id}: ${entry.verdict} for ${entry.fingerprint} in ${entry.project} (receipt ${entry.receipt_id})`,
        );
      },
    );
  feedback
    .command('list')
    .description("the verdicts that hold in this project: its own and the organization's")
    .option('--project <dir>', 'a folder of the project (default: the current one)')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag & { project?: string }) => {
      const project = projectNamed(options.project);
      const list = await withFinder((find) => find.feedback(project));
      print(
        options,
        { project, feedback: list },
        list.length
          ? list
              .map(
                (f) =>
                  `${f.feedback_id} ${f.scope} ${f.verdict} ${f.type ?? ''} ${f.fingerprint}${f.reason ? ` (${f.reason})` : ''}, ${f.decided_by}, ${f.decided_at}`,
              )
              .join('\n')
          : `no verdicts hold in ${project}`,
      );
    });
  feedback
    .command('promote')
    .description("make a project's verdict the organization's, honoured on every computer that keeps it")
    .argument('<feedback_id>')
    .option('--json', 'print JSON')
    .action(async (feedbackId: string, options: JsonFlag) => {
      const promoted = await run(ops.promoteScanFeedback, ownerKey(), { feedback_id: feedbackId });
      print(
        options,
        promoted,
        `promoted to the organization as ${promoted.feedback_id} (receipt ${promoted.receipt_id})`,
      );
    });

  const plan = program
    .command('plan')
    .description(
      "a policy from a project's latest scan: rules, files to seal, secrets for the vault (docs/SCAN.md)",
    )
    .argument('[path]', 'a folder of the project (default: the current one)')
    .option('--scan <scan_id>', 'plan from this scan instead of the latest')
    .option('--json', 'print JSON')
    .action(async (path: string | undefined, options: JsonFlag & { scan?: string }) => {
      const project = projectNamed(path);
      const shown = await withFinder((find) =>
        find.plan(options.scan ? { scan_id: options.scan } : { project }),
      );
      print(
        options,
        shown,
        [
          `plan of scan ${shown.scan_id} (${shown.scanned_at}) for ${shown.project}:`,
          ...shown.items.map((i) =>
            i.kind === 'rule'
              ? `${i.id}  rule ${i.effect} ${i.path}: ${i.reason}`
              : i.kind === 'seal'
                ? `${i.id}  seal ${i.path}: ${i.reason} (${i.command})`
                : `${i.id}  vault ${i.name} from ${i.path}:${i.line}: ${i.reason}`,
          ),
          ...shown.notes.map((n) => `note: ${n}`),
          // This plan, by its scan: a scan made since (of a subfolder, say) would plan otherwise.
          shown.items.length
            ? `apply: svc plan apply --scan ${shown.scan_id} [--items r1,r2] [--to organization]`
            : 'nothing to plan',
        ].join('\n'),
      );
    });
  plan
    .command('apply')
    .description(
      "carry out the plan (all, or --items): rules into the project's rules file or the organization, files sealed, secrets into the vault",
    )
    .argument('[path]', 'a folder of the project (default: the current one)')
    .option('--scan <scan_id>', 'the scan whose plan to apply (default: the latest)')
    .option(
      '--items <ids>',
      "the plan's items to apply (rules, seals, vault moves) by id, separated by commas (default: all)",
    )
    .option(
      '--to <where>',
      'project (the rules file, default) or organization (needs SVC_API_KEY)',
      'project',
    )
    .option('--json', 'print JSON')
    .action(
      async (path: string | undefined, options: JsonFlag & { scan?: string; items?: string; to: string }) => {
        if (options.to !== 'project' && options.to !== 'organization') {
          throw new CommanderError(
            EXIT.usage,
            'svc.usage',
            `--to is project or organization, not \`${options.to}\``,
          );
        }
        const items = options.items
          ?.split(',')
          .map((i) => i.trim())
          .filter(Boolean);
        if (items?.length === 0) {
          throw new CommanderError(
            EXIT.usage,
            'svc.usage',
            '--items names no item: give the ids `svc plan` shows (r1,s1), or leave --items out to apply all',
          );
        }
        const project = projectNamed(path);
        const applied = await withFinder(async (find) => {
          const scanId = options.scan ?? (await find.plan({ project })).scan_id;
          if (options.to === 'organization') {
            return await run(ops.applyScanPlan, ownerKey(), { scan_id: scanId, ...(items ? { items } : {}) });
          }
          return await find.applyToProject({
            scan_id: scanId,
            items,
            applied_by: 'a person at this computer, with svc plan apply',
          });
        });
        print(
          options,
          applied,
          [
            `applied ${applied.applied.join(', ')}: ${applied.rules_added} rule(s) added to ${applied.to} (receipt ${applied.receipt_id})`,
            ...applied.sealed.map((x) => `sealed ${x.path} (${x.seal_id})`),
            ...applied.not_sealed.map((x) => `not sealed: ${x.path} (${x.reason})`),
            ...applied.vaulted.map((x) => `into the vault as ${x.name}, from ${x.path}:${x.line}`),
            ...applied.not_vaulted.map((x) => `not into the vault: ${x.name} (${x.reason})`),
          ].join('\n'),
        );
      },
    );

  const redact = program
    .command('redact')
    .description(
      'write a clean copy of a folder or a file: every value `svc scan` finds replaced by a typed token (docs/SCAN.md)',
    )
    .argument('<path>')
    .option(
      '--out <dir>',
      'where the copy goes (default: <folder>.clean, or <name>.clean<ext> beside a file)',
    )
    .option(
      '--keep-mapping',
      'keep the mapping from token to value sealed in the vault, so the owner can put values back (`svc redact reverse`)',
    )
    .option(
      '--json',
      'print one JSON object: source, out, kind, files, skipped, values_replaced, tokens_by_type, copy_id, receipt_id',
    )
    .action(async (path: string, options: JsonFlag & { out?: string; keepMapping?: boolean }) => {
      const live = !options.json && process.stderr.isTTY;
      const { cleanCopyPlace, redactPath } = await import('../backend/redact.ts');
      // It reads and writes as the read gate lets an agent, recorded, as svc_redact does.
      const service = await openService();
      let copy;
      try {
        const place = cleanCopyPlace(path, options.out);
        const write = await gateAdmission(service, place.out, 'write');
        // A rule that lets only clean copies out lets this one be written: it is clean.
        if (!write.allowed && write.outcome !== 'clean_copy') {
          throw new ServiceError(
            'forbidden',
            write.message ?? `the read gate does not allow writing ${place.out}`,
            {
              outcome: write.outcome,
              rule_id: write.rule_id,
              audit_id: write.audit_id,
            },
          );
        }
        // A clean copy is what a clean-copy-only rule lets out: such files are read too. A file the
        // gate denies is not read, and is reported as protected; one it asks about, only after the
        // person's yes on this terminal.
        copy = await walkAsAgent(
          service,
          ['allowed', 'limited', 'clean_copy'],
          'svc redact',
          (admit, confirm) =>
            redactPath(service.ctx, path, {
              out: options.out,
              keepMapping: options.keepMapping,
              admit,
              confirm,
              onProgress: ({ files, bytes }) => {
                if (live && !questionOpen)
                  process.stderr.write(`\rsvc redact: ${files} files, ${(bytes / 1048576).toFixed(1)} MiB`);
              },
            }),
        );
      } catch (error) {
        if (refusedByGate(options, error)) return;
        throw error;
      } finally {
        service.close();
        if (live) process.stderr.write('\n');
      }
      // The report only: the mapping (token to value) is sealed in the store when asked, else dropped.
      const { report } = copy;
      const types = Object.entries(report.tokens_by_type).map(([type, n]) => `${type} ${n}`);
      print(
        options,
        report,
        [
          ...report.files.map((f) =>
            f.status === 'redacted'
              ? `${printable(f.file)}: ${f.values} value(s) replaced`
              : `${printable(f.file)}: copied as it is`,
          ),
          ...report.skipped.map((s) => `${printable(s.file)}: skipped (${s.reason.replace('_', ' ')})`),
          `clean copy in ${report.out}: ${report.values_replaced} value(s) replaced in ${report.files.filter((f) => f.status === 'redacted').length} of ${report.files.length} file(s)${types.length ? ` (${types.join(', ')})` : ''}${report.skipped.length ? `; ${report.skipped.length} skipped` : ''}`,
          ...(report.copy_id
            ? [
                `mapping kept sealed as ${report.copy_id} (receipt ${report.receipt_id}): \`svc redact reverse ${report.copy_id} FILE\` puts the values back, as the read gate allows`,
              ]
            : []),
        ].join('\n'),
      );
    });
  redact
    .command('reverse')
    .description(
      'put the values of a clean copy whose mapping was kept back into one of its files, as a new file, when the read gate allows reading the original; receipted',
    )
    .argument('<copy_id>')
    .argument('<file>')
    .option(
      '--out <file>',
      'where the file with its values goes (default: <name>.restored<ext> beside the original)',
    )
    .option(
      '--json',
      'print one JSON object: copy_id, out, original, sources, restored, outcome, gate_receipt_id, receipt_id',
    )
    .action(async (copyId: string, file: string, _own: unknown, command: Command) => {
      // `--out` and `--json` are `svc redact`'s options too, and commander gives them to it: read both.
      const options = command.optsWithGlobals<JsonFlag & { out?: string }>();
      const service = await openService();
      const { GateCheck } = await import('../backend/gate-check.ts');
      const gate = new GateCheck({ dataDir: service.dataDir, core: () => service.ctx, watch: false });
      let result;
      try {
        const { reverseCleanCopy } = await import('../backend/redact-mapping.ts');
        result = await reverseCleanCopy(
          service.ctx,
          { copy_id: copyId, file, out: options.out },
          async (reads, cwd) => {
            const asker = { cwd, client: 'svc' };
            const passed = await gate.check({ kind: 'paths', action: 'read', paths: [...reads] }, asker);
            // `ask` outranks a clean-copy-only rule for one action: a yes must not open such a file.
            const cleanOnly =
              passed.decision.outcome === 'ask' &&
              (await Promise.all(reads.map((path) => gate.explain(path, 'read', asker)))).some((explained) =>
                explained.covering.some((c) => c.effect === 'redact'),
              );
            return { passed, cleanOnly };
          },
          // The person at this terminal answers; without one (a pipe, an agent's shell) nobody does.
          async (question) => process.stdin.isTTY && process.stderr.isTTY && (await yesOnTerminal(question)),
          // The new file is a write, decided as for `svc open --out`.
          (out) => gateAdmission(service, out, 'write'),
        );
      } finally {
        await gate.close();
        service.close();
      }
      print(
        options,
        result,
        `put ${result.restored} value(s) back into ${result.out} (a read of the ${result.sources} file(s) they came from: ${result.outcome}; receipt ${result.receipt_id})`,
      );
    });

  program
    .command('protect')
    .description(
      'seal files in place, folders recursively (docs/VAULT.md); exit 1 when a file could not be sealed',
    )
    .argument('<path...>')
    .option('--json', 'print one JSON object: sealed, skipped, failed')
    .action(async (paths: string[], options: JsonFlag) => {
      const service = await openService();
      const live = !options.json && process.stderr.isTTY;
      let result;
      try {
        const { protectPaths } = await import('../backend/seal-files.ts');
        result = await protectPaths(service.ctx, paths, {
          by: localUser(),
          onProgress: ({ step, files, bytes }) => {
            if (live && (step === 'done' || step === 'skipped' || step === 'failed')) {
              process.stderr.write(`\rsvc protect: ${files} files, ${(bytes / 1048576).toFixed(1)} MiB`);
            }
          },
        });
      } finally {
        service.close();
        if (live) process.stderr.write('\n');
      }
      const said = {
        already_sealed: 'already sealed',
        svc_data: "svc's own data",
        system_folder: "a system folder: svc never seals the operating system's files",
        version_control: 'version control',
      } as Record<string, string>;
      print(
        options,
        result,
        [
          ...result.sealed.map((s) => `sealed   ${s.path} (${s.seal_id})`),
          ...result.skipped.map(
            (s) => `skipped  ${s.path}: ${said[s.reason] ?? s.reason.replaceAll('_', ' ')}`,
          ),
          ...result.failed.map((f) => `failed   ${f.path}: ${f.message}`),
          `${result.sealed.length} sealed, ${result.skipped.length} skipped, ${result.failed.length} failed`,
        ].join('\n'),
      );
      if (result.failed.length > 0) process.exitCode = EXIT.failed;
    });

  program
    .command('open')
    .description(
      'release a sealed file after the read gate allows it: back in place, to a new file, or to stdout (--out -)',
    )
    .argument('<path>')
    .option('--out <file>', 'write the plaintext to FILE (which must not exist), or to stdout with -')
    .option('--json', 'print one JSON object: seal_id, released_to, out_path, bytes, receipt_id')
    .action(async (path: string, options: JsonFlag & { out?: string }) => {
      if (options.out === '-' && options.json) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          '--json and --out - both write to stdout: choose one',
        );
      }
      const service = await openService();
      let opened;
      try {
        const { openSealed } = await import('../backend/seal-files.ts');
        const toStdout = (bytes: Buffer) =>
          new Promise<void>((resolve, reject) =>
            process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
          );
        opened = await openSealed(service.ctx, path, {
          out:
            options.out === undefined
              ? { kind: 'in_place' }
              : options.out === '-'
                ? { kind: 'stdout', write: toStdout }
                : { kind: 'file', path: options.out },
          by: localUser(),
          // Reading the sealed file is a read; putting its plaintext in a file is a write of that file.
          // Where the file was sealed under another path (a copy), that path's read is asked too.
          admit: async (target, role) => {
            const read = await gateAdmission(service, target, 'read');
            if (role === 'sealed_as') return read;
            if (!read.allowed || options.out === '-') return read;
            return await gateAdmission(
              service,
              options.out === undefined ? target : resolve(options.out),
              'write',
            );
          },
        });
      } catch (error) {
        if (refusedByGate(options, error)) return;
        throw error;
      } finally {
        service.close();
      }
      const where = opened.released_to === 'in_place' ? 'in place' : `to ${opened.out_path}`;
      if (opened.released_to === 'stdout') {
        process.stderr.write(
          `svc: opened ${opened.path} (${opened.bytes} bytes, receipt ${opened.receipt_id})\n`,
        );
      } else {
        print(
          options,
          opened,
          `opened ${opened.path} ${where} (${opened.bytes} bytes, receipt ${opened.receipt_id})`,
        );
      }
    });

  const seal = program.command('seal').description('seals of files sealed in place (docs/VAULT.md)');
  seal
    .command('revoke')
    .description('revoke a seal so that nobody can open the file again: its key is destroyed')
    .argument('<path-or-seal-id>')
    .option('--reason <text>', 'why, kept with the seal and its receipt')
    .option('--json', 'print JSON')
    .action(async (target: string, options: JsonFlag & { reason?: string }) => {
      if (options.reason !== undefined && options.reason.length > 512) {
        throw new CommanderError(EXIT.usage, 'svc.usage', '--reason is at most 512 characters');
      }
      const { revokeSeal, SEAL_ID } = await import('../backend/seal-files.ts');
      if (!SEAL_ID.test(target))
        refuseFolder(target, 'give a sealed file or a seal id (seal_…; `svc seal list` lists them)');
      const service = await openService();
      let revoked;
      try {
        revoked = await revokeSeal(service.ctx, target, {
          by: localUser(),
          reason: options.reason,
          // Revoking destroys what the file holds for good: a write of it, as the gate sees it.
          admit: (path) => gateAdmission(service, path, 'write'),
        });
      } catch (error) {
        if (refusedByGate(options, error)) return;
        throw error;
      } finally {
        service.close();
      }
      print(
        options,
        revoked,
        revoked.changed
          ? `revoked ${revoked.seal_id} (${revoked.path}): its key is destroyed and nobody can open it again (receipt ${revoked.receipt_id})`
          : `${revoked.seal_id} was already revoked at ${revoked.revoked_at} by ${revoked.revoked_by}`,
      );
    });
  seal
    .command('list')
    .description(
      'the seals of this store, newest first: sealed, opened (in place: the file is no longer sealed), missing, pending (a sealing that did not finish) or revoked',
    )
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const service = await openService();
      let seals;
      try {
        const { listSeals } = await import('../backend/seal-files.ts');
        seals = await listSeals(service.ctx);
      } finally {
        service.close();
      }
      print(
        options,
        { seals },
        seals.length
          ? seals
              .map((s) => `${s.seal_id}  ${s.state.padEnd(7)}  ${String(s.bytes).padStart(12)}  ${s.path}`)
              .join('\n')
          : 'no seals',
      );
    });

  const wrap = program
    .command('wrap')
    .description(
      'encrypt files into the archive in the data dir, folders recursively (docs/VAULT.md); the originals stay unless --remove; exit 1 when a file could not be wrapped',
    )
    .argument('<path...>', 'files or folders (a file named list or restore: give it as ./list)')
    .option('--remove', 'remove each original once its archived copy is on disk and indexed')
    .option('--json', 'print one JSON object: wrapped, skipped, failed')
    .action(async (paths: string[], options: JsonFlag & { remove?: boolean }) => {
      const service = await openService();
      const live = !options.json && process.stderr.isTTY;
      let result;
      try {
        const { wrapPaths } = await import('../backend/archive.ts');
        result = await wrapPaths(service.ctx, paths, {
          by: localUser(),
          remove: options.remove === true,
          // Encrypting a file reads it: the gate's read rules hold for the archive as for any reader.
          admit: (path) => gateAdmission(service, path, 'read'),
          onProgress: ({ step, files, bytes }) => {
            if (live && (step === 'done' || step === 'skipped' || step === 'failed')) {
              process.stderr.write(`\rsvc wrap: ${files} files, ${(bytes / 1048576).toFixed(1)} MiB`);
            }
          },
        });
      } finally {
        service.close();
        if (live) process.stderr.write('\n');
      }
      print(
        options,
        result,
        [
          ...result.wrapped.map(
            (w) =>
              `wrapped  ${w.path} (${w.object_id}${w.deduplicated ? ', stored before' : ''}${w.original_removed ? ', original removed' : ''})`,
          ),
          ...result.skipped.map((s) => `skipped  ${s.path}: ${s.reason.replaceAll('_', ' ')}`),
          ...result.failed.map((f) => `failed   ${f.path}: ${f.message}`),
          `${result.wrapped.length} wrapped, ${result.skipped.length} skipped, ${result.failed.length} failed`,
        ].join('\n'),
      );
      if (result.failed.length > 0) process.exitCode = EXIT.failed;
    });
  wrap
    .command('list')
    .description('what the archive holds, newest first: id, size, where it was wrapped from')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const service = await openService();
      let entries;
      try {
        const { listArchive } = await import('../backend/archive.ts');
        entries = await listArchive(service.ctx);
      } finally {
        service.close();
      }
      print(
        options,
        { entries },
        entries.length
          ? entries
              .map(
                (e) =>
                  `${e.object_id}  ${e.wrapped_at}  ${String(e.bytes).padStart(12)}  ${e.path}${e.original_removed_at ? '  (original removed)' : ''}`,
              )
              .join('\n')
          : 'the archive is empty: `svc wrap PATH` wraps files into it',
      );
    });
  wrap
    .command('restore')
    .description(
      'restore an archived file after the read gate allows it: where it was wrapped from, to a file, or to stdout (--out -); never over an existing file unless --force',
    )
    .argument('<id>', 'the archive id (arc_…), as `svc wrap list` shows it')
    .option('--out <file>', 'write to FILE, or to stdout with -')
    .option('--force', 'replace the file at the destination if there is one')
    .option('--json', 'print one JSON object: object_id, released_to, out_path, bytes, receipt_id')
    .action(async (id: string, options: JsonFlag & { out?: string; force?: boolean }) => {
      if (options.out === '-' && options.json) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          '--json and --out - both write to stdout: choose one',
        );
      }
      const force = options.force === true;
      const service = await openService();
      let restored;
      try {
        const { restoreArchived } = await import('../backend/archive.ts');
        const toStdout = (bytes: Buffer) =>
          new Promise<void>((resolve, reject) =>
            process.stdout.write(bytes, (error) => (error ? reject(error) : resolve())),
          );
        restored = await restoreArchived(service.ctx, id, {
          out:
            options.out === undefined
              ? { kind: 'original', force }
              : options.out === '-'
                ? { kind: 'stdout', write: toStdout }
                : { kind: 'file', path: options.out, force },
          by: localUser(),
          // The archived content is read as each path it came from would be; its destination is written.
          admit: async (from, to) => {
            let admission = { allowed: true, outcome: 'allowed', rule_id: null, audit_id: null } as Awaited<
              ReturnType<typeof gateAdmission>
            >;
            for (const path of from) {
              admission = await gateAdmission(service, path, 'read');
              if (!admission.allowed) return admission;
            }
            if (to === null) return admission;
            const write = await gateAdmission(service, to, 'write');
            // After the gate, so that its refusal (receipted) comes first whatever the destination.
            if (write.allowed) refuseOutFile(options.out);
            return write;
          },
        });
      } catch (error) {
        if (refusedByGate(options, error)) return;
        throw error;
      } finally {
        service.close();
      }
      if (restored.released_to === 'stdout') {
        process.stderr.write(
          `svc: restored ${restored.object_id} (${restored.bytes} bytes, receipt ${restored.receipt_id})\n`,
        );
      } else {
        print(
          options,
          restored,
          `restored ${restored.object_id} to ${restored.out_path} (${restored.bytes} bytes, receipt ${restored.receipt_id})`,
        );
      }
    });

  const recovery = program
    .command('recovery')
    .description(
      "the 12-word recovery phrase and the vault backup kept by the organization's svc (docs/VAULT.md); needs SVC_BASE_URL and SVC_API_KEY",
    );
  recovery
    .command('setup')
    .description(
      "make a recovery phrase, shown once, and keep a vault backup sealed to it on the organization's svc",
    )
    .option('--replace', 'make a new phrase although one was set up (the old one stops opening new backups)')
    .option(
      '--phrase-to-stdout',
      'show the phrase on stdout although it is not a terminal (a pipe or a file keeps it)',
    )
    .option('--json', 'print JSON: phrase, fingerprint, copy_id and what the backup holds')
    .action(async (options: JsonFlag & { replace?: boolean; phraseToStdout?: boolean }) => {
      // The phrase is the key to everything this computer sealed: it goes to a terminal, or where the person says.
      if (!process.stdout.isTTY && !options.phraseToStdout) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          'the recovery phrase is shown once, on the terminal, and stdout is not one: run this in a terminal, or pass --phrase-to-stdout',
        );
      }
      const org = await organizationService();
      const state = await org.call(ops.getRecoveryState, {});
      if (state.configured && !options.replace) {
        throw new ServiceError(
          'conflict',
          `a recovery phrase is set up already (key ${state.key!.fingerprint}): \`svc recovery backup\` refreshes the backup; \`svc recovery setup --replace\` makes a new phrase`,
        );
      }
      const { newRecoveryPhrase, recoveryKeys } = await import('../vault/recovery.ts');
      const phrase = newRecoveryPhrase();
      const keys = await recoveryKeys(phrase);
      const pubkeyHex = Buffer.from(keys.publicKey).toString('hex');
      const set = await org.call(ops.setRecoveryKey, { pubkey_hex: pubkeyHex });
      const uploaded = await uploadBackup(org, keys.publicKey);
      await org.call(ops.recordRecoveryEvent, {
        kind: 'phrase_created',
        detail: { fingerprint: set.fingerprint },
      });
      const service = await openService();
      try {
        service.ctx.vault.putCredential(RECOVERY_PUBKEY_CREDENTIAL, pubkeyHex);
      } finally {
        service.close();
      }
      print(
        options,
        { phrase, fingerprint: set.fingerprint, replaced: set.replaced, ...uploaded },
        [
          'Your recovery phrase (shown once: write it down and keep it offline; svc does not keep it):',
          '',
          `    ${phrase}`,
          '',
          `recovery key ${set.fingerprint}; backup ${uploaded.copy_id} (${uploaded.keys} keys, ${uploaded.seals} seals, ${uploaded.secrets} secrets) kept by ${org.base}`,
          'On a new computer: `svc recover` with SVC_BASE_URL and SVC_API_KEY set.',
        ].join('\n'),
      );
    });
  recovery
    .command('backup')
    .description("seal the vault as it is now to the recovery key and keep it on the organization's svc")
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const org = await organizationService();
      const state = await org.call(ops.getRecoveryState, {});
      const service = await openService();
      let kept;
      try {
        kept = service.ctx.vault.getCredential(RECOVERY_PUBKEY_CREDENTIAL);
      } finally {
        service.close();
      }
      if (!state.key || !kept) {
        throw new ServiceError(
          'conflict',
          'no recovery phrase is set up on this computer: run `svc recovery setup`',
        );
      }
      const { timingSafeEqual } = await import('node:crypto');
      const theirs = Buffer.from(state.key.pubkey_hex, 'hex');
      const ours = Buffer.from(kept, 'hex');
      // A recovery key replaced on the service by someone else would receive this computer's keys.
      if (theirs.length !== ours.length || !timingSafeEqual(theirs, ours)) {
        throw new ServiceError(
          'conflict',
          `the service's recovery key (${state.key.fingerprint}) is not the one this computer set up, so nothing was sent: if the phrase was replaced on purpose, run \`svc recovery setup --replace\` here`,
        );
      }
      const uploaded = await uploadBackup(org, ours);
      print(
        options,
        uploaded,
        `backup ${uploaded.copy_id} (${uploaded.keys} keys, ${uploaded.seals} seals, ${uploaded.secrets} secrets) kept by ${org.base}`,
      );
    });
  recovery
    .command('status')
    .description("whether a recovery phrase is set up, and the latest backup the organization's svc keeps")
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const org = await organizationService();
      const state = await org.call(ops.getRecoveryState, {});
      const status = {
        configured: state.configured,
        fingerprint: state.key?.fingerprint ?? null,
        copy_count: state.copy_count,
        latest_copy: state.latest_copy
          ? {
              id: state.latest_copy.id,
              size_bytes: state.latest_copy.size_bytes,
              created_at: state.latest_copy.created_at,
            }
          : null,
      };
      print(
        options,
        status,
        state.configured
          ? `recovery key ${status.fingerprint}; ${status.copy_count} backup(s), the latest ${status.latest_copy?.created_at ?? 'none'}`
          : 'no recovery phrase is set up: `svc recovery setup` makes one',
      );
    });

  program
    .command('recover')
    .description(
      "restore this computer's vault from the organization's svc with the recovery phrase, read from stdin or a hidden prompt; into a data dir without keys of its own",
    )
    .option('--json', 'print JSON: what was restored')
    .action(async (options: JsonFlag) => {
      const { readHiddenLine, readPipedValue } = await import('./secret-input.ts');
      const { openVaultBackup, recoveryKeys } = await import('../vault/recovery.ts');
      const { parseVaultBackup, restoreVaultBackup } = await import('../backend/vault-backup.ts');
      const { keyId } = await import('../proofs/format.ts');
      const { timingSafeEqual } = await import('node:crypto');
      // Never from the command line: every user of the computer sees arguments, and shells keep them.
      const typed = process.stdin.isTTY
        ? await readHiddenLine('recovery phrase (not shown): ')
        : await readPipedValue();
      const keys = await recoveryErrors(() => recoveryKeys(typed));
      const org = await organizationService();
      const state = await org.call(ops.getRecoveryState, {});
      if (!state.key || !state.latest_copy) {
        throw new ServiceError(
          'not_found',
          `the service at ${org.base} keeps no recovery backup for this organization`,
        );
      }
      const theirs = Buffer.from(state.key.pubkey_hex, 'hex');
      if (theirs.length !== keys.publicKey.length || !timingSafeEqual(theirs, keys.publicKey)) {
        await org.call(ops.recordRecoveryEvent, {
          kind: 'restore_failed',
          detail: { reason: 'wrong_phrase' },
        });
        throw new ServiceError(
          'invalid_request',
          `this is not the organization's recovery phrase (it gives key ${keyId(keys.publicKey)}, the service keeps ${state.key.fingerprint}); nothing was restored`,
          { reason: 'wrong_phrase' },
        );
      }
      await org.call(ops.recordRecoveryEvent, {
        kind: 'copy_downloaded',
        detail: { copy_id: state.latest_copy.id },
      });
      const opened = await recoveryErrors(() =>
        openVaultBackup(keys, Buffer.from(state.latest_copy!.ciphertext_b64, 'base64')),
      );
      let restored;
      try {
        restored = await restoreVaultBackup(dataDir(), parseVaultBackup(opened), localUser());
      } catch (error) {
        await org.call(ops.recordRecoveryEvent, {
          kind: 'restore_failed',
          detail: { reason: (error as Error).name },
        });
        throw error;
      } finally {
        opened.fill(0);
      }
      await org.call(ops.recordRecoveryEvent, {
        kind: 'restore_completed',
        detail: { copy_id: state.latest_copy.id },
      });
      print(
        options,
        { ...restored, copy_id: state.latest_copy.id, backup_created_at: state.latest_copy.created_at },
        `restored ${restored.keys} keys, ${restored.seals} seals and ${restored.secrets} secrets into ${restored.data_dir} (keys in ${restored.key_store}; receipt ${restored.receipt_id})`,
      );
    });

  program
    .command('run')
    .description(
      'run a command with vault secrets in its environment, its output masked (docs/VAULT.md); exits with its exit code, 124 on timeout',
    )
    .argument('<command...>', 'after --: the command and its arguments, run without a shell')
    .option('--secret <name>', 'a vault secret to set as the environment variable NAME (repeatable)', collect)
    .option('--timeout <seconds>', 'end the command (and all it started) after this long', '3600')
    .option(
      '--json',
      'after the run, print its record (exit code, secrets, masks, receipt) as JSON on stderr',
    )
    .action(async (argv: string[], options: JsonFlag & { secret?: string[]; timeout: string }) => {
      const seconds = Number(options.timeout);
      if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 7 * 86400) {
        throw new CommanderError(
          EXIT.usage,
          'svc.usage',
          '--timeout is a number of seconds, above 0, at most 604800',
        );
      }
      const service = await openService();
      let ran;
      try {
        const { runWithSecrets } = await import('../backend/run.ts');
        ran = await runWithSecrets(service.ctx, {
          command: argv[0]!,
          args: argv.slice(1),
          secrets: options.secret ?? [],
          timeoutMs: Math.round(seconds * 1000),
          cwd: process.cwd(),
          env: process.env,
          by: localUser(),
          admit: (name) => gateAdmission(service, `the secret ${name}`, 'use_key', { kind: 'secret', name }),
          write: (stream, text) => process[stream].write(text),
          // A command in a process group of its own may not read the terminal (it would be
          // stopped): svc reads it and passes the input on. A pipe or a file it reads itself.
          stdin: process.stdin.isTTY ? { feed: (input) => process.stdin.pipe(input) } : 'inherit',
        });
      } catch (error) {
        if (refusedByGate(options, error)) return;
        throw error;
      } finally {
        service.close();
      }
      if (options.json) process.stderr.write(`${JSON.stringify(ran)}\n`);
      else if (ran.timed_out) {
        process.stderr.write(
          `svc: ${ran.command} timed out after ${seconds} s and was ended (receipt ${ran.receipt_id})\n`,
        );
      }
      process.exitCode = ran.exit_code;
    });

  const secret = program
    .command('secret')
    .description('vault secrets that `svc run` injects as environment variables (docs/VAULT.md)');
  secret
    .command('set')
    .description(
      'set a secret (replacing its value): the value is read from standard input, or a hidden prompt on a terminal, never from the command line',
    )
    .argument('<name>', 'the environment variable it becomes: A-Z, 0-9, _')
    .option('--json', 'print JSON: name, created, receipt_id')
    .action(async (name: string, options: JsonFlag) => {
      const { checkSecretName, setSecret } = await import('../backend/secrets.ts');
      checkSecretName(name);
      const { readSecretValue } = await import('./secret-input.ts');
      const value = await readSecretValue(name);
      const service = await openService();
      let set;
      try {
        set = await setSecret(service.ctx, name, value, { by: localUser() });
      } finally {
        service.close();
      }
      print(
        options,
        set,
        `${set.created ? 'set' : 'replaced'} secret ${set.name} (receipt ${set.receipt_id})`,
      );
    });
  secret
    .command('list')
    .description('the secrets of this vault by name, with when they were set; never a value')
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const service = await openService();
      let secrets;
      try {
        const { listSecrets } = await import('../backend/secrets.ts');
        secrets = await listSecrets(service.ctx);
      } finally {
        service.close();
      }
      print(
        options,
        { secrets },
        secrets.length
          ? secrets.map((s) => `${s.name}  set ${s.updated_at} by ${s.updated_by}`).join('\n')
          : 'no secrets: `svc secret set NAME` sets one',
      );
    });
  secret
    .command('rm')
    .description('remove a secret: its sealed value is overwritten and deleted')
    .argument('<name>')
    .option('--json', 'print JSON: name, receipt_id')
    .action(async (name: string, options: JsonFlag) => {
      const service = await openService();
      let removed;
      try {
        const { removeSecret } = await import('../backend/secrets.ts');
        removed = await removeSecret(service.ctx, name, { by: localUser() });
      } finally {
        service.close();
      }
      print(options, removed, `removed secret ${removed.name} (receipt ${removed.receipt_id})`);
    });

  const rules = program
    .command('rules')
    .description(
      "the read gate's file and folder rules (docs/RULES.md); add, remove and import need SVC_API_KEY",
    );
  rules
    .command('list')
    .description("every rule the gate applies here: built-in, the organization's, this computer's files")
    .option('--json', 'print JSON')
    .action(async (options: JsonFlag) => {
      const gate = await localGate();
      const listed = await gate.list({ cwd: process.cwd() });
      print(
        options,
        listed,
        [
          ...listed.rules.map(
            (r) =>
              `${r.id} [${r.level}] ${r.effect} ${r.paths.join(', ')}${r.reason ? ` (${r.reason})` : ''}`,
          ),
          ...listed.refused.map((r) => `refused: ${r.message}`),
        ].join('\n'),
      );
    });
  rules
    .command('add')
    .description('add organization rules: a JSON rule or array of rules, as docs/RULES.md shows')
    .argument('<json>')
    .option('--json', 'print JSON')
    .action(async (json: string, options: JsonFlag) => {
      await addRuleList(parseRulesText(json, 'the argument'), options);
    });
  rules
    .command('import')
    .description('add every rule of a rules file (a JSON array) to the organization, all or none')
    .argument('<file>')
    .option('--json', 'print JSON')
    .action(async (file: string, options: JsonFlag) => {
      await addRuleList(parseRulesText(readFileSync(file, 'utf8'), file), options);
    });
  rules
    .command('remove')
    .description('remove one organization rule by the id `svc rules list` shows')
    .argument('<rule_id>')
    .option('--json', 'print JSON')
    .action(async (ruleId: string, options: JsonFlag) => {
      const removed = await run(ops.removeRule, ownerKey(), { rule_id: ruleId });
      print(options, removed, `removed ${removed.rule_id} (receipt ${removed.receipt_id})`);
    });
  for (const [name, description] of [
    ['test', 'what the gate decides for an action on a path here; exit 0 allowed, 5 refused or asked'],
    ['explain', 'the decision, every rule that covers the path, and the rules refused as loosening'],
  ] as const) {
    rules
      .command(name)
      .description(description)
      .argument('<path>')
      .option('--for <action>', `the action: ${ACTIONS.join(', ')}`, 'read')
      .option('--agent <handle>', 'decide as this agent')
      .option('--json', 'print JSON')
      .action(async (path: string, options: JsonFlag & { for: string; agent?: string }) => {
        if (!(ACTIONS as readonly string[]).includes(options.for)) {
          throw new CommanderError(EXIT.usage, 'svc.usage', `--for must be one of ${ACTIONS.join(', ')}`);
        }
        const gate = await localGate();
        const explained = await gate.explain(path, options.for as Action, {
          cwd: process.cwd(),
          agent: options.agent,
          client: 'svc',
        });
        const { decision } = explained;
        const lines = [`${decision.outcome}: ${decision.explanation}`, `to change it: ${decision.to_change}`];
        if (name === 'explain') {
          for (const c of explained.covering)
            lines.push(`  ${c.id} [${c.level}] ${c.effect}${c.reason ? ` (${c.reason})` : ''}`);
          for (const r of explained.refused) lines.push(`refused: ${r.message}`);
        }
        print(
          options,
          name === 'explain' ? explained : { decision, project_root: explained.project_root },
          lines.join('\n'),
        );
        if (decision.outcome !== 'allowed' && decision.outcome !== 'limited') process.exitCode = EXIT.deny;
      });
  }

  // `svc hook CLIENT` is answered by bin/svc.js before this framework loads (a hook starts in
  // the agent's critical path); this entry lists it in the help and answers the same way.
  program
    .command('hook')
    .description(
      'decide one agent tool call against the file and folder rules, or install the hook into a client (docs/HOOKS.md)',
    )
    .argument(
      '<client-or-install>',
      `${INSTALL_CLIENTS.join(', ')}: decide the event on stdin; install: write the client's settings; bundle: build the fast-start bundle of the hook`,
    )
    .option('--client <client>', `with install: ${INSTALL_CLIENTS.join(', ')}`)
    .option(
      '--scope <scope>',
      "with install: user (the client's folder in the home folder) or project (in the current folder)",
      'project',
    )
    .option('--uninstall', "with install: take svc's hook out again")
    .option('--json', 'with install or bundle: print the result as JSON')
    .option('--quiet', 'with bundle: print nothing')
    .action(
      async (
        what: string,
        options: JsonFlag & { client?: string; scope: string; uninstall?: boolean; quiet?: boolean },
      ) => {
        if (what === 'bundle') {
          const report = await buildHookBundle(dataDir());
          if (!options.quiet) print(options, report, bundleSummary(report, "the hook's"));
          return;
        }
        if (what !== 'install') {
          const { main: hook } = await import('../entry/hook.ts');
          await hook(what);
          return;
        }
        if (!options.client || !(INSTALL_CLIENTS as readonly string[]).includes(options.client)) {
          throw new CommanderError(
            EXIT.usage,
            'svc.usage',
            `--client must be one of ${INSTALL_CLIENTS.join(', ')}`,
          );
        }
        if (options.scope !== 'user' && options.scope !== 'project') {
          throw new CommanderError(EXIT.usage, 'svc.usage', '--scope must be user or project');
        }
        const client = options.client as InstallClient;
        const where = { home: homedir(), project: process.cwd(), env: process.env };
        const file = settingsFile(client, options.scope, where);
        const [runtime, svcBin] = svcArgv();
        const command = hookCommand(
          runtime!,
          svcBin!,
          client,
          // The hook runs in the client's environment: it is told the store this install used.
          storeEnvironment(),
        );
        try {
          const result = install({
            client,
            file,
            command,
            scope: options.scope,
            project: where.project,
            uninstall: options.uninstall ?? false,
          });
          if (options.uninstall) return print(options, result, result.summary);
          // The hook starts fast from its bundle; without one it runs from the sources, only slower.
          const bundle = await buildHookBundle(dataDir()).catch((error: Error) => ({
            error: error.message,
          }));
          const said =
            'error' in bundle
              ? `no fast-start bundle (${bundle.error})`
              : bundleSummary(bundle, "the hook's");
          print(options, { ...result, bundle }, [result.summary, ...result.notes, said].join('\n'));
        } catch (error) {
          if (!(error instanceof InstallError)) throw error;
          throw new CommanderError(EXIT.usage, 'svc.usage', error.message);
        }
      },
    );

  addAgeCommands(program);
  addShareCommands(program, { withService, ownerKey });
  addExposeCommands(program, { withService });

  return program;
}

async function buildHookBundle(dataDir: string) {
  const { buildHookBundle: build } = await import('../entry/hook-bundle.ts');
  return build(dataDir);
}

const bundleSummary = (b: Awaited<ReturnType<typeof buildHookBundle>>, whose: string) =>
  `${whose} fast-start bundle is in ${b.dir}: ${b.modules} modules in one script of ${b.script_bytes} bytes, code cache ${b.cache_bytes} bytes, built in ${Math.round(b.build_ms)} ms`;

/** stdio mode: stdout carries protocol only; diagnostics go to stderr. */
async function serveMcpOverStdio(): Promise<void> {
  const { serveMcpOverStdio: serveOverStdio } = await import('../entry/mcp-stdio.ts');
  await serveOverStdio(() => process.exit(EXIT.ok));
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return EXIT.ok;
      // `svc help [COMMAND]` asked for help (0); `svc` alone, or a command without its subcommand, did not.
      if (error.code === 'commander.help') return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      if (error.code === 'svc.usage') process.stderr.write(`svc: ${error.message}\n`);
      // The command's own options (`sh -c …`) were read as svc run's: they go after `--`.
      if (error.code === 'commander.unknownOption' && argv[0] === 'run' && !argv.includes('--')) {
        process.stderr.write('svc: give the command after --: svc run --secret NAME -- COMMAND ARGS\n');
      }
      return EXIT.usage;
    }
    const serviceError =
      error instanceof ServiceError
        ? error
        : error instanceof SyntaxError
          ? new ServiceError('invalid_request', `file is not valid JSON: ${error.message}`)
          : (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? new ServiceError('not_found', `file not found: ${(error as NodeJS.ErrnoException).path ?? ''}`)
            : new ServiceError('internal', (error as Error).message);
    if (json) process.stdout.write(`${JSON.stringify(serviceError.toBody())}\n`);
    process.stderr.write(`svc: ${printableLines(serviceError.message)}\n`);
    return EXIT.failed;
  }
}

const code = await main(process.argv.slice(2));
// `serve` and `mcp` keep the process alive through their servers; everything else exits with its code.
const args = process.argv.slice(2);
const longRunning =
  args[0] === 'serve' ||
  (args[0] === 'mcp' && !args.includes('--print-config') && !args.includes('--bundle'));
if (!longRunning || code !== EXIT.ok) {
  // Writes to a pipe are asynchronous: exiting at once would drop what is still queued (a long
  // `svc scan --json | jq` lost all but its first 64 KiB). An empty write calls back after them.
  // A reader that went away (`| head`) is no failure of the command: its code stands.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise((done) => s.write('', done))));
  process.exit(code);
}
