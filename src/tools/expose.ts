// svc_expose: offer a folder of this computer to a partner for a time, list the exposures, end one.
// The partner's link lists only the files the read gate lets a partner have and serves clean
// copies of them (docs/SHARE.md, Exposures). Starting one lets data leave this computer, so the
// read gate must let this agent read the folder and the person must say yes through the client's
// form; ending one only takes away, and needs neither.
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { svcCommand } from '../config/command.ts';
import { ops } from '../backend/operations/index.ts';
import { EXPOSURE_MAX_COPIES, EXPOSURE_MAX_TTL_HOURS } from '../backend/vocabulary.ts';
import { requireGate } from './gate.ts';
import { defineTool, noAnswer, type ToolDeps } from './registry.ts';
import { printable } from '../backend/printable.ts';

const BY = 'agent:mcp, confirmed by the person';

const Input = z
  .object({
    action: z
      .enum(['start', 'list', 'end'])
      .describe(
        'start: offer a folder (the person confirms); list: this computer’s exposures; end: end one now',
      ),
    folder: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('for start: the folder to offer, absolute or relative to cwd'),
    cwd: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe("where a relative folder starts and the project is found (default: the server's folder)"),
    expires_hours: z
      .number()
      .int()
      .min(1)
      .max(EXPOSURE_MAX_TTL_HOURS)
      .optional()
      .describe(
        `for start: hours until the link stops working (default 24, at most ${EXPOSURE_MAX_TTL_HOURS})`,
      ),
    max_copies: z
      .number()
      .int()
      .min(1)
      .max(EXPOSURE_MAX_COPIES)
      .optional()
      .describe(`for start: clean copies the link gives in all (default 10, at most ${EXPOSURE_MAX_COPIES})`),
    code: z
      .boolean()
      .optional()
      .describe('for start: make an access code every copy also needs, for the person to send separately'),
    exposure: z.string().min(1).max(2048).optional().describe('for end: the exposure id, or its link'),
  })
  .strict();

const ExposureView = z.object({
  exposure_id: z.string(),
  folder: z.string(),
  state: z.enum(['active', 'used_up', 'ended', 'locked', 'expired']),
  expires_at: z.string(),
  has_code: z.boolean(),
  max_copies: z.number().int(),
  copies_used: z.number().int(),
  copies_left: z.number().int(),
});

const Output = z.object({
  action: z.enum(['start', 'list', 'end']),
  /** The partner's link: only after start. */
  url: z.string().nullable(),
  /** The access code, only after a start that asked for one: the person sends it separately. */
  code: z.string().nullable(),
  exposures: z.array(ExposureView),
  receipt_id: z.string().nullable(),
  next: z.string(),
});

type View = z.infer<typeof ExposureView>;
const viewOf = (e: View): View => ({
  exposure_id: e.exposure_id,
  folder: e.folder,
  state: e.state,
  expires_at: e.expires_at,
  has_code: e.has_code,
  max_copies: e.max_copies,
  copies_used: e.copies_used,
  copies_left: e.copies_left,
});

/** Exposures belong to the computer that holds the folder: its store, its gate, its `svc serve`. */
function onThisComputer(deps: ToolDeps): void {
  if (deps.invoker.location.kind !== 'local') {
    throw new ServiceError(
      'forbidden',
      'exposures belong to the computer that holds the folder: use svc_expose through `svc mcp` on that computer, without SVC_BASE_URL',
    );
  }
}

export const svcExpose = defineTool({
  name: 'svc_expose',
  group: 'share',
  title: 'Offer a folder to a partner as clean copies',
  description:
    'Offers a folder of this computer to a partner for a time (action "start"): the partner gets a link whose page lists only the files the owner\u2019s read rules let a partner have (the others are not even named), and asks there, or with JSON over the same link, for a clean copy of any of them: every secret and piece of personal data replaced by a typed token such as [EMAIL_1], made when asked, each copy receipted with the file and the token types. The read gate must let you read the folder, and the person confirms through the client\u2019s form (a client without forms cannot start one: the person runs `svc expose FOLDER`). Give the link (and the code, if asked for) to the person to pass on; the link works while `svc serve` runs here. "list" shows this computer\u2019s exposures with copies used; "end" ends one at once (receipted).',
  credential: 'none',
  inputSchema: Input,
  outputSchema: Output,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    onThisComputer(deps);
    if (input.action === 'list') {
      const all = await deps.invoker.invoke(ops.listExposures, undefined, {});
      const live = all.exposures.filter((e) => e.state === 'active');
      const next = live.length
        ? 'end one with action "end" and its exposure_id when the partner no longer needs it'
        : 'start one with action "start" and a folder';
      return {
        text: [
          `${all.count} exposure(s), ${live.length} active.`,
          ...all.exposures.map(
            (e) =>
              `${e.exposure_id} ${e.state}: ${e.folder}, ${e.copies_used}/${e.max_copies} copies, until ${e.expires_at}`,
          ),
          next,
        ].join('\n'),
        structured: {
          action: 'list' as const,
          url: null,
          code: null,
          exposures: all.exposures.map(viewOf),
          receipt_id: null,
          next,
        },
      };
    }
    if (input.action === 'end') {
      if (!input.exposure)
        throw new ServiceError('invalid_request', 'end needs `exposure`: its id or its link');
      const { exposureIdOf } = await import('../backend/expose-client.ts');
      const ended = await deps.invoker.invoke(ops.endExposure, undefined, {
        exposure_id: exposureIdOf(input.exposure),
        by: 'agent:mcp',
      });
      const next = 'nothing more is listed or copied through its link';
      return {
        text: ended.already_ended
          ? `Exposure ${ended.exposure_id} had already ended (${ended.state}).`
          : `Exposure ${ended.exposure_id} ended after ${ended.copies_used} copies; receipt ${ended.receipt!.receipt_id}. ${next}.`,
        structured: {
          action: 'end' as const,
          url: null,
          code: null,
          exposures: [viewOf(ended)],
          receipt_id: ended.receipt?.receipt_id ?? null,
          next,
        },
      };
    }
    if (!input.folder) throw new ServiceError('invalid_request', 'start needs `folder`: the folder to offer');
    const cwd = input.cwd ?? process.cwd();
    const folder = resolve(cwd, input.folder);
    // What the partner receives is clean copies, so a folder the agent may read only clean is fine.
    await requireGate(
      deps,
      { kind: 'paths', action: 'read', paths: [folder] },
      { cwd, client: deps.client },
      { cleanCopy: true },
    );
    const answer = await deps.confirm(
      printable(
        `Offer clean copies of the files in ${folder} to whoever holds the link, for ${input.expires_hours ?? 24} hour(s) and up to ${input.max_copies ?? 10} copies? Only files your read rules let a partner have are listed.`,
      ),
    );
    if (answer !== 'accepted') {
      throw new ServiceError(
        'forbidden',
        answer === 'declined'
          ? 'the person declined: nothing was exposed'
          : `exposing a folder needs the person's yes, and ${noAnswer(answer)}: nothing was exposed. The person can run \`${svcCommand(
              'expose',
              ...(input.expires_hours ? ['--expires', `${input.expires_hours}h`] : []),
              ...(input.max_copies ? ['--max-copies', String(input.max_copies)] : []),
              ...(input.code ? ['--code'] : []),
              folder,
            )}\` in a terminal`,
      );
    }
    const { exposeFolder } = await import('../backend/expose-client.ts');
    const exposed = await exposeFolder(deps.invoker, {
      folder,
      expiresHours: input.expires_hours,
      maxCopies: input.max_copies,
      code: input.code,
      by: BY,
    });
    const [status] = (await deps.invoker.invoke(ops.listExposures, undefined, { limit: 1 })).exposures;
    const next = [
      `give the person the link to pass on${exposed.code ? ', and the access code to send another way' : ''}`,
      exposed.note ?? null,
      `end it with action "end" and exposure ${exposed.exposure_id}`,
    ]
      .filter(Boolean)
      .join('; ');
    return {
      text: [
        `Exposed ${exposed.folder}: ${exposed.url}`,
        `Up to ${exposed.max_copies} clean copies until ${exposed.expires_at}; receipt ${exposed.receipt_id}.`,
        ...(exposed.code ? [`Access code: ${exposed.code}`] : []),
        next,
      ].join('\n'),
      structured: {
        action: 'start' as const,
        url: exposed.url,
        code: exposed.code,
        exposures: status && status.exposure_id === exposed.exposure_id ? [viewOf(status)] : [],
        receipt_id: exposed.receipt_id,
        next,
      },
    };
  },
});
