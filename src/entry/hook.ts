// `svc hook <client>`: one event on stdin, one answer on stdout, in the client's format. A hook runs
// in the client's critical path, so this loads the gate and the clients' formats, the store only
// when a daily limit applies and zod only to say why an event or a rules file is refused: no CLI
// framework, no service, no HTTP (docs/HOOKS.md, Speed). It fails closed: an event
// it cannot read, rules it cannot read or an error of its own blocks the call (exit 2, the reason
// on stderr), as Claude Code understands.
import { readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { enableCompileCache } from '../config/compile-cache.ts';
import { homeDir } from '../config/data-dir.ts';
import { ensureDataDir, resolveDataDir } from '../config/paths.ts';
import { Gate, type Charge, type Decision } from '../gate/engine.ts';
import {
  DYNAMIC_POLICIES,
  decideCommand,
  decideSearch,
  localRules,
  projectRootOf,
  type DynamicPolicy,
} from '../gate/local.ts';
import { pathForms } from '../gate/resolve.ts';
import { claude } from '../hooks/claude.ts';
import { cursor } from '../hooks/cursor.ts';
import type { HookCall, HookFormat } from '../hooks/format.ts';

export interface HookResult {
  stdout: string;
  stderr: string;
  code: number;
}

/** Exit code that makes Claude Code (and Codex, and Gemini CLI) block the call and show stderr. */
const BLOCK = 2;

const block = (why: string): HookResult => ({ stdout: '', stderr: `svc hook: ${why}\n`, code: BLOCK });

/** The clients' formats: each checks its event without zod, so none builds a schema at start. */
const FORMATS: Record<string, HookFormat> = { claude, cursor };
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
    const home = env.HOME?.trim() || homeDir(env);
    const projectRoot = projectRootOf(cwd);
    const dataDir = resolveDataDir(env);
    const rules = await localRules({ projectRoot, dataDir, env });
    const gate = new Gate(rules, { projectRoot, home });
    const dynamic = (env.SVC_GATE_DYNAMIC?.trim() || 'ask') as DynamicPolicy;
    if (!DYNAMIC_POLICIES.includes(dynamic)) {
      return block(`SVC_GATE_DYNAMIC must be one of ${DYNAMIC_POLICIES.join(', ')}; the call is blocked`);
    }
    const base = { client: format.client, now: new Date() };
    const decide = (usesSoFar: (charge: Charge) => number): Decision => {
      switch (ask.kind) {
        case 'folder':
          return decideSearch(
            gate,
            { ...base, action: 'search' },
            pathForms(ask.folder, { cwd: cwd, home })[0]!,
            usesSoFar,
            home,
          );
        case 'shell':
          return decideCommand(
            gate,
            base,
            ask.command,
            { cwd: cwd, home, dynamic, ownerRules: rules.some((r) => r.level !== 'builtin') },
            usesSoFar,
          );
        case 'paths':
          return gate.decide(
            {
              ...base,
              action: ask.action,
              paths: ask.paths.flatMap((p) => pathForms(p, { cwd: cwd, home })),
            },
            usesSoFar,
          );
      }
    };
    let decision = decide(() => 0);
    if (decision.charges.length > 0) decision = await withCounts(dataDir, decide);
    const answer = call.answer(decision);
    return { stdout: answer.stdout, stderr: '', code: answer.code };
  } catch (error) {
    return block(`the gate could not decide (${(error as Error).message}); the call is blocked`);
  }
}

/**
 * Decides again with the store's counts, and records the uses, in one write: the count read and
 * the use recorded under the same lock, so two calls at once cannot both take the last use.
 */
async function withCounts(
  dataDir: string,
  decide: (usesSoFar: (c: Charge) => number) => Decision,
): Promise<Decision> {
  enableCompileCache();
  const { Store } = await import('../backend/store/db.ts');
  const store = new Store(join(ensureDataDir(dataDir), 'svc.db'));
  try {
    return store.writeAtStartup(() => {
      const decision = decide(
        (c) =>
          store.getAtStartup<{ uses: number }>(
            'SELECT uses FROM gate_uses WHERE rule_id = ? AND subject = ? AND day = ?',
            c.rule_id,
            c.subject,
            c.day,
          )?.uses ?? 0,
      );
      for (const c of decision.charges) {
        store.runAtStartup(
          `INSERT INTO gate_uses (rule_id, subject, day, uses) VALUES (?, ?, ?, 1)
           ON CONFLICT (rule_id, subject, day) DO UPDATE SET uses = uses + 1`,
          c.rule_id,
          c.subject,
          c.day,
        );
      }
      return decision;
    });
  } finally {
    store.close();
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
