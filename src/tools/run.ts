// svc_run: an agent runs a command with vault secrets in its environment, once the person confirms
// and the gate allows `use_key` on each secret; it reads the command's output masked. The core runs,
// masks and receipts (src/backend/run.ts); this shapes the answer for a model.
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { svcCommand } from '../config/command.ts';
import { SECRET_NAME } from '../backend/vocabulary.ts';
import { admitAll } from './lock.ts';
import { cwdField } from './gate.ts';
import { defineTool, noAnswer } from './registry.ts';
import { printable } from '../backend/printable.ts';

/** The most of each stream handed back: the end of it, where a command says how it went. */
export const RUN_OUTPUT_MAX_CHARS = 64 * 1024;
/** Who runs, as receipts name it. */
const BY = 'agent:mcp, confirmed by the person';

const RunInput = z
  .object({
    command: z
      .array(z.string().max(32 * 1024))
      .min(1)
      .max(256)
      .describe('the command and its arguments, e.g. ["npm", "run", "deploy"]; run without a shell'),
    secrets: z
      .array(z.string().regex(SECRET_NAME))
      .max(32)
      .default([])
      .describe('names of vault secrets to set as environment variables of the same names'),
    timeout_seconds: z
      .number()
      .positive()
      .max(600)
      .default(60)
      .describe('end the command, and all it started, after this long (exit code 124)'),
    cwd: cwdField("where the command runs (default: the server's folder)"),
  })
  .strict();

const RunOutput = z.object({
  exit_code: z.number().int(),
  timed_out: z.boolean(),
  stdout: z.string().describe('the end of standard output, every secret masked as [credential]'),
  stderr: z.string().describe('the end of standard error, masked the same way'),
  truncated: z.boolean().describe('whether either stream was longer than what is shown'),
  secrets: z.array(z.string()),
  masks_fired: z.number().int(),
  duration_ms: z.number().int(),
  receipt_id: z.string(),
  next: z.string(),
});

export const svcRun = defineTool({
  name: 'svc_run',
  group: 'find-lock',
  title: 'Run a command with vault secrets',
  description:
    'Runs a command on this computer with vault secrets (set by the person with `svc secret set`) as environment variables, so you can use an API key without ever seeing it. The person confirms each run through the client\u2019s form, and the gate must allow use_key on each secret; a client without forms cannot run (the person uses `svc run` in a terminal). Output comes back masked: every secret, in any common encoding, reads [credential]; only the last 64 KiB of each stream is kept. The exit code passes through (124: timed out). Each run is receipted with the command name, the secrets and the exit code.',
  credential: 'none',
  inputSchema: RunInput,
  outputSchema: RunOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    if (!deps.gate || !deps.runner) {
      throw new ServiceError(
        'forbidden',
        'this server has no gate and no vault of its own, so it runs nothing: use the tool through `svc mcp` on the computer that holds the secrets',
      );
    }
    const cwd = resolve(input.cwd ?? process.cwd());
    const [command, ...args] = input.command;
    const out = { stdout: '', stderr: '' };
    let truncated = false;
    const ran = await deps.runner({
      command: command!,
      args,
      secrets: input.secrets,
      timeoutMs: Math.round(input.timeout_seconds * 1000),
      cwd,
      env: process.env,
      by: BY,
      stdin: 'ignore',
      admit: (name) => admitAll(deps, [{ kind: 'secret', name }], cwd),
      write: (stream, text) => {
        out[stream] += text;
        if (out[stream].length > 2 * RUN_OUTPUT_MAX_CHARS) {
          out[stream] = out[stream].slice(-RUN_OUTPUT_MAX_CHARS);
          truncated = true;
        }
      },
      confirm: async () => {
        // A command can do anything the person could: the person says so, never the agent alone.
        const answer = await deps.confirm(
          printable(
            `Run \`${input.command.join(' ').slice(0, 500)}\` in ${cwd}${input.secrets.length ? ` with the secrets ${input.secrets.join(', ')}` : ''}?`,
          ),
        );
        if (answer === 'accepted') return null;
        return answer === 'declined'
          ? 'the person declined: nothing was run'
          : `running a command needs the person's confirmation, and ${noAnswer(answer)}: nothing was run. The person can run it in a terminal in ${cwd}: \`${svcCommand('run', ...input.secrets.flatMap((name) => ['--secret', name]), '--', ...input.command)}\``;
      },
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      if (out[stream].length > RUN_OUTPUT_MAX_CHARS) {
        out[stream] = out[stream].slice(-RUN_OUTPUT_MAX_CHARS);
        truncated = true;
      }
    }
    const next = ran.timed_out
      ? 'it timed out: run it again with a longer timeout_seconds, or something shorter'
      : ran.exit_code === 0
        ? 'done'
        : 'it failed: read stderr for why';
    return {
      text: `${input.command[0]} exited ${ran.exit_code}${ran.timed_out ? ' (timed out)' : ''}, ${ran.masks_fired} masks, receipt ${ran.receipt_id}. ${next}\n\nstdout:\n${out.stdout}\nstderr:\n${out.stderr}`,
      structured: {
        exit_code: ran.exit_code,
        timed_out: ran.timed_out,
        stdout: out.stdout,
        stderr: out.stderr,
        truncated,
        secrets: ran.secrets,
        masks_fired: ran.masks_fired,
        duration_ms: ran.duration_ms,
        receipt_id: ran.receipt_id,
        next,
      },
    };
  },
});
