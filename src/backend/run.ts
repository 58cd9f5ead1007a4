// Running a command with vault secrets (docs/VAULT.md): the gate decides `use_key` for each secret
// first; the command runs without a shell, the secrets in its environment under their names; its
// stdout and stderr come back through the streaming masker; a timeout ends its whole process group;
// and every run, or refusal, leaves a receipt naming the secrets, never their values.
import { spawn, type StdioOptions } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { Masker } from '../scan/mask.ts';
import { StreamMasker } from '../scan/mask-stream.ts';
import { svcCommand } from '../config/command.ts';
import { nowIso, type Context } from './context.ts';
import { Refusal, receiptRefusals } from './governance.ts';
import type { Admission } from './seal-files.ts';
import { checkSecretName, missingSecrets, secretValues } from './secrets.ts';

/** Exit code of a command ended by its timeout, as timeout(1) answers. */
export const TIMEOUT_EXIT = 124;
/** After SIGTERM, this long for the process group to end before SIGKILL, as `timeout -k` does. */
const KILL_GRACE_MS = 2000;

export interface RunOptions {
  /** argv[0]: looked up on PATH, never handed to a shell. */
  command: string;
  args: readonly string[];
  /** Names of the vault secrets to put in the command's environment. */
  secrets: readonly string[];
  timeoutMs: number;
  cwd: string;
  /** The environment the command starts from; the secrets are set over it. */
  env: NodeJS.ProcessEnv;
  /** Who runs it, as receipts name them. */
  by: string;
  /** The gate's decision on using one secret (`use_key`). */
  admit: (name: string) => Promise<Admission>;
  /**
   * The person's confirmation, asked once the gate has allowed every secret: null to go ahead, or
   * why not (the run is then refused and receipted). Absent: the person's own command.
   */
  confirm?: (() => Promise<string | null>) | undefined;
  /** Where masked output goes, per stream, as it arrives. */
  write: (stream: 'stdout' | 'stderr', text: string) => void;
  /** The command's standard input: svc's own ('inherit'), a pipe given to `feed`, or none. */
  stdin?: 'inherit' | 'ignore' | { feed: (input: NodeJS.WritableStream) => void };
}

export interface RunResult {
  /** argv[0] as given (masked); the arguments are not kept: they may hold anything. */
  command: string;
  secrets: string[];
  /** The command's exit code; 128 + the signal's number when a signal ended it; 124 on timeout. */
  exit_code: number;
  signal: string | null;
  timed_out: boolean;
  masks_fired: number;
  duration_ms: number;
  receipt_id: string;
}

const SIGNAL_NUMBERS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

/** Runs a command with the secrets `options.secrets` names, as the gate lets it. */
export async function runWithSecrets(ctx: Context, options: RunOptions): Promise<RunResult> {
  const names = [...new Set(options.secrets)];
  for (const name of names) checkSecretName(name);
  const asked = { command: options.command, secrets: names, by: options.by };
  const refuse = (
    code: 'forbidden' | 'not_found',
    message: string,
    reason: string,
    details: Record<string, unknown>,
  ) =>
    new Refusal(code, message, details, {
      kind: 'run.deny',
      org_id: null,
      body: { ...asked, reason, ...details },
    });
  return receiptRefusals(ctx, async () => {
    const missing = await missingSecrets(ctx, names);
    if (missing.length > 0) {
      throw refuse(
        'not_found',
        `no secret ${missing.join(', ')} in this vault: the person sets one in a terminal with \`${svcCommand('secret', 'set', missing[0]!)}\` (it asks for the value); nothing was run`,
        'unknown_secret',
        { missing },
      );
    }
    const gate: Record<string, unknown>[] = [];
    for (const name of names) {
      const admission = await options.admit(name);
      const decided = {
        secret: name,
        outcome: admission.outcome,
        rule_id: admission.rule_id,
        audit_id: admission.audit_id,
      };
      gate.push(decided);
      if (!admission.allowed) {
        throw refuse(
          'forbidden',
          `${admission.message ?? `the gate did not allow using the secret ${name}`}; nothing was run`,
          'gate',
          decided,
        );
      }
    }
    const declined = options.confirm ? await options.confirm() : null;
    if (declined !== null) throw refuse('forbidden', declined, 'unconfirmed', { outcome: 'unconfirmed' });
    const values = await secretValues(ctx, names);
    const masker = new Masker([...values.values()]);
    // argv[0] may itself carry a value someone pasted: it is masked like the output.
    const command = masker.mask(options.command);
    const started = performance.now();
    const ran = await spawnMasked(options, values, masker);
    const duration_ms = Math.round(performance.now() - started);
    const receipt = await ctx.chains.append('service', {
      kind: 'run',
      org_id: null,
      signed_at: nowIso(ctx),
      body: {
        command,
        secrets: names,
        by: options.by,
        gate,
        exit_code: ran.exit_code,
        signal: ran.signal,
        timed_out: ran.timed_out,
        masks_fired: ran.masks_fired,
        duration_ms,
      },
    });
    return { command, secrets: names, ...ran, duration_ms, receipt_id: receipt.receipt_id };
  });
}

interface Ran {
  exit_code: number;
  signal: string | null;
  timed_out: boolean;
  masks_fired: number;
}

/** Starts the command in a process group of its own and masks what it writes until it ends. */
function spawnMasked(options: RunOptions, values: Map<string, string>, masker: Masker): Promise<Ran> {
  const stdin = options.stdin ?? 'ignore';
  const stdio: StdioOptions = [typeof stdin === 'string' ? stdin : 'pipe', 'pipe', 'pipe'];
  return new Promise<Ran>((resolve) => {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: { ...options.env, ...Object.fromEntries(values) },
      stdio,
      shell: false,
      // Its own process group, so a timeout ends whatever it started too (a shell's children).
      detached: true,
    });
    const streams = { stdout: new StreamMasker(masker), stderr: new StreamMasker(masker) };
    for (const name of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8');
      const stream = child[name]!;
      stream.on('data', (bytes: Buffer) => {
        const text = streams[name].push(decoder.write(bytes));
        if (text) options.write(name, text);
      });
      stream.on('end', () => {
        const text = streams[name].push(decoder.end()) + streams[name].end();
        if (text) options.write(name, text);
      });
    }
    if (typeof stdin === 'object' && child.stdin) {
      child.stdin.on('error', () => undefined);
      stdin.feed(child.stdin);
    }
    let timedOut = false;
    let killer: NodeJS.Timeout | undefined;
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // The group is gone already.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      signalGroup('SIGTERM');
      killer = setTimeout(() => signalGroup('SIGKILL'), KILL_GRACE_MS);
    }, options.timeoutMs);
    // svc itself interrupted: the command's group, which no terminal signals, is ended with it.
    const forward = (signal: NodeJS.Signals) => signalGroup(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    let done = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null, failed?: Error) => {
      // A command that could not start reports 'error' and may report 'close' after it.
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(killer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      if (failed) {
        // Not started (no such command, not executable): said on stderr, as a shell says it.
        options.write('stderr', masker.mask(`svc: cannot run ${options.command}: ${failed.message}\n`));
      }
      const exit_code = timedOut
        ? TIMEOUT_EXIT
        : failed
          ? (failed as NodeJS.ErrnoException).code === 'ENOENT'
            ? 127
            : 126
          : (code ?? 128 + (SIGNAL_NUMBERS[signal ?? ''] ?? 0));
      const masks_fired = streams.stdout.fired + streams.stderr.fired;
      resolve({ exit_code, signal, timed_out: timedOut, masks_fired });
    };
    child.once('error', (error) => finish(null, null, error));
    child.once('close', (code, signal) => finish(code, signal));
  });
}
