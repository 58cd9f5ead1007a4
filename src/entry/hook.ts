// `svc hook <client>`: one event on stdin, one answer on stdout, in the client's format. A hook runs
// in the client's critical path, so this loads the gate and the clients' formats, reads the
// organization rules from the store without a lock, opens svc's core (store and keys) only when a
// rule covers what is touched, to count and record the decision, and loads zod only to say why an
// event or a rules file is refused: no CLI framework, no operations, no HTTP (docs/HOOKS.md,
// Speed). It fails closed: an event
// it cannot read, rules it cannot read or an error of its own blocks the call (exit 2, the reason
// on stderr), as Claude Code understands.
import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { enableCompileCache } from '../config/compile-cache.ts';
import { homeDir } from '../config/data-dir.ts';
import { resolveDataDir } from '../config/paths.ts';
import type { Decision, UsesSoFar } from '../gate/engine.ts';
import { decideWith, gateFor, type GateAsk } from '../gate/check.ts';
import { pathForms } from '../gate/resolve.ts';
import { readOrganizationRules } from '../backend/rules-read.ts';
import { claude } from '../hooks/claude.ts';
import { cursor } from '../hooks/cursor.ts';
import { gemini } from '../hooks/gemini.ts';
import { codex } from '../hooks/codex.ts';
import type { HookCall, HookDecision, HookFormat } from '../hooks/format.ts';

export interface HookResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Exit code that makes Claude Code (and Codex, and Gemini CLI) block the call and show stderr. */
const BLOCK = 2;

const block = (why: string): HookResult => ({ stdout: '', stderr: `svc hook: ${why}\n`, code: BLOCK });

/** The clients' formats: each checks its event without zod, so none builds a schema at start. */
const FORMATS: Record<string, HookFormat> = { claude, cursor, gemini, codex };
export const HOOK_CLIENTS = Object.keys(FORMATS);

export async function runHook(client: string, input: string, env: NodeJS.ProcessEnv): Promise<HookResult> {
  const format = Object.hasOwn(FORMATS, client) ? FORMATS[client] : undefined;
  if (!format) {
    return block(`no hook for client "${client}"; svc has: ${HOOK_CLIENTS.join(', ')}`);
  }
  let call: HookCall;
  try {
    const read = await format.read(JSON.parse(input));
    if (typeof read === 'string') return block(`${read}; the call is blocked`);
    call = read;
  } catch {
    return block('the event on stdin is not JSON; the call is blocked');
  }
  try {
    const { ask, cwd } = call;
    if (ask.kind === 'ungated') return { stdout: '', stderr: '', code: 0 };
    const dataDir = resolveDataDir(env);
    const setting = {
      dataDir,
      home: env.HOME?.trim() || homeDir(env),
      env,
      organization: readOrganizationRules(join(dataDir, 'svc.db')),
    };
    const now = new Date();
    // With the rules of other projects whose files the call touches, as well as the asker's own.
    const compiled = { ...(await gateFor(setting, cwd, ask)), setting };
    const decide = (usesSoFar: UsesSoFar): Decision =>
      decideWith(compiled, ask, { cwd, client: format.client }, now, usesSoFar);
    let decision: HookDecision = decide(() => 0);
    // A decision no rule made (nothing protects what is touched) needs no store and no keys: the
    // common call stays fast. Any other is decided again with the store's counts and recorded.
    if (decision.rule || decision.charges.length > 0) {
      // A read of one file that the gate allows only clean: the file it may read instead.
      const file = readOfOneFile(ask) ? pathForms(ask.paths[0]!, { cwd, home: setting.home })[0] : undefined;
      const recorded = await recordInStore(dataDir, decide, format.client, file);
      decision = recorded.decision;
      if (recorded.receipt_id) {
        decision = {
          ...decision,
          explanation: `${decision.explanation} (audit record ${recorded.receipt_id})`,
        };
      }
    }
    const answer = call.answer(decision);
    return { stdout: answer.stdout, stderr: '', code: answer.code };
  } catch (error) {
    return block(`the gate could not decide (${(error as Error).message}); the call is blocked`);
  }
}

const readOfOneFile = (ask: GateAsk): ask is Extract<GateAsk, { kind: 'paths' }> =>
  ask.kind === 'paths' && ask.action === 'read' && ask.paths.length === 1;

/**
 * Opens svc's core on this computer's data dir (only now: it loads the store and the keys) and
 * records. When the decision is a clean copy only and `file` is the one file read, the clean copy
 * is made for the agent to read instead; the redaction code loads only then.
 */
async function recordInStore(
  dataDir: string,
  decide: (usesSoFar: UsesSoFar) => Decision,
  client: string,
  file: string | undefined,
): Promise<{ decision: HookDecision; receipt_id: string | null }> {
  enableCompileCache();
  const [{ openCore }, { decideAndRecord }] = await Promise.all([
    import('../backend/core.ts'),
    import('../backend/gate-record.ts'),
  ]);
  const { ctx } = openCore({ dataDir });
  try {
    const recorded = await decideAndRecord(ctx, decide, { client });
    if (recorded.decision.outcome !== 'clean_copy' || file === undefined) return recorded;
    const { cleanCopyForAgent } = await import('../backend/redact.ts');
    return {
      ...recorded,
      decision: { ...recorded.decision, clean_copy: cleanCopyForAgent(ctx, dataDir, file, { client }) },
    };
  } finally {
    ctx.store.close();
  }
}

/**
 * The process: reads stdin whole, answers, exits. stdin and stdout are read and written directly:
 * their stream objects take longer to set up than the whole decision.
 */
export async function main(client: string): Promise<void> {
  const result = await runHook(client, await readStdin(), process.env);
  if (result.stdout) writeSync(1, `${result.stdout}\n`);
  if (result.stderr) writeSync(2, result.stderr);
  process.exitCode = result.code;
}

async function readStdin(): Promise<string> {
  try {
    return readFileSync(0, 'utf8');
  } catch (error) {
    // A stdin set non-blocking by the parent cannot be read in one call: take the stream then.
    if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }
}
