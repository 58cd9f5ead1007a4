// The share tools: svc_send, svc_deliver, svc_burn and svc_link_status. svc_send shares a file or a
// text. With `to` (a Fabric address) it is sealed here, on the agent's computer, to the recipient's
// enrolled key and sent as an envelope through the service, which stores only ciphertext and
// receipts the send. Without `to` it becomes a governed link: sealed here too, with the key only in
// the link's fragment (docs/SHARE.md).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { contentTypeOf, sealAndSend } from '../backend/fabric-inbox.ts';
import {
  ENVELOPE_MAX_FETCHES,
  LINK_DEFAULT_MAX_OPENS,
  LINK_MAX_BYTES,
  LINK_MAX_OPENS,
} from '../backend/vocabulary.ts';
import { ops } from '../backend/operations/index.ts';
import { CreateLinkRequest } from '../backend/operations/links.ts';
import { agentOf, ownerOf } from './credentials.ts';
import { requireGate, cwdField } from './gate.ts';
import { defineTool, type ToolDeps } from './registry.ts';

/** The most svc_send seals into one envelope: its base64 must fit the service's 16 MiB send body. */
export const SEND_MAX_BYTES = 8 * 1024 * 1024;
const PURPOSE_MAX = 512;

const SendInput = z
  .object({
    path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe('a file to send, absolute or relative to cwd; the read gate must let you read it'),
    cwd: cwdField("where a relative path starts and the project is found (default: the server's folder)"),
    text: z
      .string()
      .min(1)
      .max(LINK_MAX_BYTES)
      .optional()
      .describe('a text to send instead of a file (exactly one of path and text)'),
    to: z
      .string()
      .regex(/^[0-9a-f]{16}$/, 'to must be a Fabric address: 16 lowercase hex characters')
      .optional()
      .describe(
        "the recipient's Fabric address (16 lowercase hex): sends an encrypted envelope to that agent",
      ),
    expires_hours: z
      .number()
      .int()
      .min(1)
      .max(720)
      .optional()
      .describe('hours until it can no longer be opened (default 24, at most 720)'),
    // The link operation's own field, so its bounds (1 to LINK_MAX_OPENS) are the schema's: restated
    // by hand, the schema said any safe integer while the operation refused more than 100.
    max_opens: CreateLinkRequest.shape.max_opens.describe(
      `how many times it may be opened: a link ${LINK_DEFAULT_MAX_OPENS} by default, at most ${LINK_MAX_OPENS}; an envelope 1 by default, at most ${ENVELOPE_MAX_FETCHES}`,
    ),
    code: z.boolean().optional().describe('links only: the opener must also type a code'),
    view_only: z.boolean().optional().describe('links only: shown in the browser, not downloadable'),
    from: z
      .string()
      .trim()
      .min(1)
      .max(80)
      .optional()
      .describe('a name shown to the recipient (as told by you, not verified)'),
    purpose: z
      .string()
      .trim()
      .min(1)
      .max(PURPOSE_MAX)
      .optional()
      .describe('why you send it, shown to the recipient'),
  })
  .strict();

const SendOutput = z.object({
  kind: z.enum(['link', 'envelope']),
  url: z
    .string()
    .optional()
    .describe('the link, its key after `#`: give it to the person exactly as it is, once'),
  link_id: z.string().optional(),
  code: z
    .string()
    .nullable()
    .optional()
    .describe('the access code the link also needs: to be given separately from the link'),
  envelope_id: z.string().optional(),
  to: z.string().optional(),
  expires_at: z.string(),
  max_opens: z.number().int().optional(),
  max_fetches: z.number().int().optional(),
  receipt_id: z.string().describe('the signed receipt of the send (metadata and digests only)'),
  next: z.string(),
});

/** The file's bytes, read as one open file (no second look-up of the name), up to the envelope limit. */
function readSmallFile(path: string, limit: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ServiceError(
      code === 'ENOENT' ? 'not_found' : 'invalid_request',
      code === 'ENOENT' ? `no file ${path}` : `cannot read ${path} (${code ?? 'error'})`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ServiceError('invalid_request', `${path} is not a file: send one file`);
    if (stat.size > limit) {
      throw new ServiceError(
        'payload_too_large',
        `${path} is ${stat.size} bytes; at most ${limit} can be sent`,
        {
          limit_bytes: limit,
        },
      );
    }
    const bytes = new Uint8Array(stat.size);
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, done);
      if (n === 0) break;
      done += n;
    }
    return bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}

type SendArgs = z.infer<typeof SendInput>;
type Deps = ToolDeps;

/** What is sent: a file the read gate lets the agent read, or a text. */
async function contentOf(
  input: { path?: string | undefined; cwd?: string | undefined; text?: string | undefined },
  deps: Deps,
  limit: number,
): Promise<{ bytes: Uint8Array; name?: string }> {
  if ((input.path === undefined) === (input.text === undefined)) {
    throw new ServiceError('invalid_request', 'give exactly one of path (a file) and text');
  }
  if (input.path !== undefined) {
    const cwd = resolve(input.cwd ?? process.cwd());
    const path = resolve(cwd, input.path);
    await requireGate(deps, { kind: 'paths', action: 'read', paths: [path] }, { cwd, client: deps.client });
    return { bytes: readSmallFile(path, limit), name: basename(path) };
  }
  const bytes = new TextEncoder().encode(input.text);
  if (bytes.length > limit) {
    throw new ServiceError('payload_too_large', `text is at most ${limit} bytes of UTF-8`, {
      limit_bytes: limit,
    });
  }
  return { bytes };
}

/** A link made of the content, with the owner's key; the answer tells the model how to hand it over. */
async function sendAsLink(input: SendArgs, deps: Deps, burnAfterRead: boolean) {
  const bearer = ownerOf(deps);
  if (input.purpose !== undefined) {
    throw new ServiceError('invalid_request', 'purpose applies to envelopes (with `to`) only: leave it out', {
      field: 'purpose',
    });
  }
  const content = await contentOf(input, deps, LINK_MAX_BYTES);
  const { sendLink } = await import('../backend/share-client.ts');
  const sent = await sendLink(deps.invoker, bearer, {
    ...content,
    expiresHours: input.expires_hours,
    maxOpens: input.max_opens,
    burnAfterRead,
    viewOnly: input.view_only,
    code: input.code,
    senderName: input.from,
  });
  const opens = sent.burn_after_read
    ? 'opens once, then is destroyed'
    : `opens at most ${sent.max_opens} times`;
  const next = [
    'give the person the url exactly as it is (the part after # is the key, which the service never sees)',
    sent.code ? `and the access code ${sent.code}, to be sent another way than the link` : '',
    sent.note ? `; ${sent.note}` : '',
    '; svc_link_status shows each open, svc_burn destroys it now',
  ].join(' ');
  return {
    text: `link for ${content.name ?? 'the text'} (${content.bytes.length} bytes): ${sent.url}\nIt ${opens}, until ${sent.expires_at}${sent.view_only ? ', view only' : ''}.${sent.code ? ` Access code: ${sent.code}.` : ''} Receipt ${sent.receipt_id}. Next: ${next}`,
    structured: {
      kind: 'link' as const,
      url: sent.url,
      link_id: sent.link_id,
      code: sent.code,
      expires_at: sent.expires_at,
      max_opens: sent.max_opens,
      receipt_id: sent.receipt_id,
      next,
    },
  };
}

async function sendAsEnvelope(input: SendArgs & { to: string }, deps: Deps) {
  const linkOnly = (['code', 'view_only'] as const).filter((k) => input[k] !== undefined);
  if (linkOnly.length) {
    throw new ServiceError(
      'invalid_request',
      `${linkOnly.join(' and ')} apply to links only; an envelope to \`to\` is opened by that agent alone: leave ${linkOnly.length > 1 ? 'them' : 'it'} out`,
      { fields: linkOnly },
    );
  }
  if (input.max_opens !== undefined && input.max_opens > ENVELOPE_MAX_FETCHES) {
    throw new ServiceError(
      'invalid_request',
      `an envelope may be opened at most ${ENVELOPE_MAX_FETCHES} times; max_opens was ${input.max_opens}`,
      { field: 'max_opens' },
    );
  }
  // The envelope has no sender name of its own: a given one travels in the purpose, as told.
  const purpose =
    input.from === undefined
      ? input.purpose
      : `from ${input.from}${input.purpose === undefined ? '' : `: ${input.purpose}`}`;
  if (purpose !== undefined && purpose.length > PURPOSE_MAX) {
    throw new ServiceError(
      'invalid_request',
      `from and purpose together are at most ${PURPOSE_MAX - 7} characters`,
      {
        field: 'purpose',
      },
    );
  }
  const bearer = agentOf(deps);
  const content = await contentOf(input, deps, SEND_MAX_BYTES);
  const contentType = content.name ? contentTypeOf(content.name, content.bytes) : 'text/plain; charset=utf-8';
  const sent = await sealAndSend(
    { invoker: deps.invoker, bearer },
    {
      to: input.to,
      plaintext: content.bytes,
      filename_hint: content.name,
      content_type_hint: contentType,
      ttl_hours: input.expires_hours,
      max_fetches: input.max_opens,
      purpose,
    },
  );
  const next = `tell the recipient (${sent.recipient_kid}) that envelope ${sent.id} is waiting: they open it with svc_inbox. It opens only while a Fabric grant of your organization allows you to send to that address`;
  return {
    text: `sent ${content.name ?? 'text'} (${content.bytes.length} bytes) to ${sent.recipient_kid} as envelope ${sent.id}, at most ${sent.max_fetches} fetch(es) until ${sent.ttl_at}; receipt ${sent.receipt.receipt_id}. ${next}`,
    structured: {
      kind: 'envelope' as const,
      envelope_id: sent.id,
      to: sent.recipient_kid,
      expires_at: sent.ttl_at,
      max_fetches: sent.max_fetches,
      receipt_id: sent.receipt.receipt_id,
      next,
    },
  };
}

export const svcSend = defineTool({
  name: 'svc_send',
  group: 'share',
  title: 'Send a file or text',
  description:
    "Shares a file (`path`, which the read gate must let you read) or a `text`, exactly one. Without `to` it makes a governed link (needs the organization key): the content is encrypted here and the key travels only in the link's fragment, so the service cannot read it; `expires_hours` (default 24, at most 720), `max_opens` (default 5, at most 100), `code: true` (an access code the opener must also type), `view_only` (shown in the browser, no download) and `from` (a name the page shows) set its policy. Give the person the returned url exactly as it is, and the code separately. With `to`, the recipient agent's Fabric address (16 hex; they get it from svc_inbox action address), it is encrypted to that agent's enrolled key and sent as an envelope (needs the agent grant token and an address of your own from svc_inbox): the recipient opens it with svc_inbox, only while a Fabric grant of your organization allows you to send to that address; `max_opens` is then at most 20, and `purpose` is shown to the recipient. Every send is receipted. For burn-after-read use svc_deliver.",
  credential: 'owner or grant',
  inputSchema: SendInput,
  outputSchema: SendOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) =>
    input.to === undefined
      ? await sendAsLink(input, deps, false)
      : await sendAsEnvelope({ ...input, to: input.to }, deps),
});

const DeliverInput = SendInput.pick({
  path: true,
  text: true,
  expires_hours: true,
  code: true,
  view_only: true,
  from: true,
});

export const svcDeliver = defineTool({
  name: 'svc_deliver',
  group: 'share',
  title: 'Deliver once (burn after read)',
  description:
    "Shares a file (`path`, which the read gate must let you read) or a `text` as a burn-after-read link: it opens once, then the service destroys its copy. Like svc_send's links otherwise: encrypted here, the key only in the link's fragment; `expires_hours` (default 24), `code: true`, `view_only`, `from`. Needs the organization key. Give the person the url exactly as it is, and the code separately; svc_link_status shows whether it was opened.",
  credential: 'owner',
  inputSchema: DeliverInput,
  outputSchema: SendOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => await sendAsLink(input, deps, true),
});

const LinkArg = z
  .string()
  .min(1)
  .max(2048)
  .describe("the link (as svc_send answered it, with or without the part after '#') or its id");

const LinkStatusOutput = z.object({
  links: z
    .array(
      z.object({
        link_id: z.string(),
        state: z.string(),
        opens_used: z.number().int(),
        opens_left: z.number().int(),
        expires_at: z.string(),
        content_type: z.string(),
      }),
    )
    .optional(),
  link: z
    .object({
      link_id: z.string(),
      state: z.string(),
      opens_used: z.number().int(),
      opens_left: z.number().int(),
      max_opens: z.number().int(),
      expires_at: z.string(),
      ended_at: z.string().nullable(),
      attempts: z.array(
        z.object({
          at: z.string(),
          outcome: z.enum(['allow', 'deny']),
          reason: z.string(),
          receipt_id: z.string(),
        }),
      ),
    })
    .optional(),
  next: z.string(),
});

export const svcLinkStatus = defineTool({
  name: 'svc_link_status',
  group: 'share',
  title: 'Link status',
  description:
    "Without `link`: the organization's links, newest first, each with its state (active, used_up, burned, revoked, locked, expired), opens used and left, and expiry. With `link` (the link or its id): that link and every open attempt, allowed or refused, with the reason and its signed receipt (verify one with svc_verify). Needs the organization key; reads nothing of the content.",
  credential: 'owner',
  inputSchema: z.object({ link: LinkArg.optional() }).strict(),
  outputSchema: LinkStatusOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const bearer = ownerOf(deps);
    const { linkIdOf } = await import('../backend/share-client.ts');
    if (input.link === undefined) {
      const all = await deps.invoker.invoke(ops.listLinks, bearer, {});
      const links = all.links.map((l) => ({
        link_id: l.link_id,
        state: l.state,
        opens_used: l.opens_used,
        opens_left: l.opens_left,
        expires_at: l.expires_at,
        content_type: l.content_type,
      }));
      const next = links.length
        ? 'give `link` for one link with every open attempt and its receipt'
        : 'no links yet: svc_send makes one';
      return {
        text: links.length
          ? `${links.map((l) => `${l.link_id}: ${l.state}, ${l.opens_used} opened, ${l.opens_left} left, expires ${l.expires_at}`).join('\n')}\n${next}`
          : next,
        structured: { links, next },
      };
    }
    const one = await deps.invoker.invoke(ops.linkStatus, bearer, { link_id: linkIdOf(input.link) });
    const link = {
      link_id: one.link_id,
      state: one.state,
      opens_used: one.opens_used,
      opens_left: one.opens_left,
      max_opens: one.max_opens,
      expires_at: one.expires_at,
      ended_at: one.ended_at,
      attempts: one.attempts.map((a) => ({
        at: a.at,
        outcome: a.outcome,
        reason: a.reason,
        receipt_id: a.receipt_id,
      })),
    };
    const next =
      one.state === 'active'
        ? 'svc_burn destroys it now; svc_verify checks any receipt'
        : 'it has ended: nothing can be opened';
    return {
      text: `link ${one.link_id}: ${one.state}, opened ${one.opens_used} of ${one.max_opens}, expires ${one.expires_at}; ${one.attempts.length} attempt(s)${one.attempts.map((a) => `\n  ${a.at} ${a.outcome} ${a.reason} (receipt ${a.receipt_id})`).join('')}\n${next}`,
      structured: { link, next },
    };
  },
});

export const svcBurn = defineTool({
  name: 'svc_burn',
  group: 'share',
  title: 'Burn a link',
  description:
    'Destroys a link now (the link or its id): the service deletes its encrypted content, with a receipt, and the page says it was destroyed by its sender. A link that already ended is left as it is. Needs the organization key. Cannot be undone.',
  credential: 'owner',
  inputSchema: z.object({ link: LinkArg }).strict(),
  outputSchema: z.object({
    link_id: z.string(),
    state: z.string(),
    already_ended: z.boolean(),
    receipt_id: z.string().nullable(),
    next: z.string(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  handler: async (input, deps) => {
    const bearer = ownerOf(deps);
    const { linkIdOf } = await import('../backend/share-client.ts');
    const ended = await deps.invoker.invoke(ops.burnLink, bearer, { link_id: linkIdOf(input.link) });
    const next = 'nothing more to do: anyone opening it is told it was destroyed';
    return {
      text: ended.already_ended
        ? `link ${ended.link_id} had already ended (${ended.state}); nothing changed`
        : `link ${ended.link_id} burned: its content is gone (receipt ${ended.receipt!.receipt_id}). ${next}`,
      structured: {
        link_id: ended.link_id,
        state: ended.state,
        already_ended: ended.already_ended,
        receipt_id: ended.receipt?.receipt_id ?? null,
        next,
      },
    };
  },
});
