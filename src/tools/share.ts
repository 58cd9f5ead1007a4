// svc_send: share a file or a text. With `to` (a Fabric address) it is sealed here, on the agent's
// computer, to the recipient's enrolled key and sent as an envelope through the service, which
// stores only ciphertext and receipts the send. Without `to` it will be a governed link.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import { contentTypeOf, sealAndSend } from '../backend/fabric-inbox.ts';
import { agentOf } from './credentials.ts';
import { requireGate } from './gate.ts';
import { defineTool } from './registry.ts';

/** The most svc_send seals into one envelope: its base64 must fit the service's 16 MiB send body. */
export const SEND_MAX_BYTES = 8 * 1024 * 1024;
/** An envelope may be fetched at most this many times (the service's max_fetches). */
const ENVELOPE_MAX_FETCHES = 20;
const PURPOSE_MAX = 512;

const SendInput = z
  .object({
    path: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        "a file to send, absolute or relative to the server's folder; the read gate must let you read it",
      ),
    text: z
      .string()
      .min(1)
      .max(SEND_MAX_BYTES)
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
    max_opens: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `how many times it may be opened (default 1); for an envelope at most ${ENVELOPE_MAX_FETCHES}`,
      ),
    code: z.boolean().optional().describe('links only: the opener must also type a code'),
    view_only: z.boolean().optional().describe('links only: shown in the browser, not downloadable'),
    from: z
      .string()
      .trim()
      .min(1)
      .max(120)
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
  kind: z.enum(['envelope']),
  envelope_id: z.string(),
  to: z.string(),
  expires_at: z.string(),
  max_fetches: z.number().int(),
  receipt_id: z.string().describe('the signed receipt of the send (metadata and digests only)'),
  next: z.string(),
});

/** The file's bytes, read as one open file (no second look-up of the name), up to the envelope limit. */
function readSmallFile(path: string): Uint8Array {
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
    if (stat.size > SEND_MAX_BYTES) {
      throw new ServiceError(
        'payload_too_large',
        `${path} is ${stat.size} bytes; an envelope holds at most ${SEND_MAX_BYTES}`,
        { limit_bytes: SEND_MAX_BYTES },
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

export const svcSend = defineTool({
  name: 'svc_send',
  group: 'share',
  title: 'Send a file or text',
  description:
    "Sends a file (`path`, which the read gate must let you read) or a `text`, exactly one. With `to`, the recipient agent's Fabric address (16 hex; they get it from svc_inbox action address), it is encrypted here to that agent's enrolled key and stored by the service as an envelope it cannot read: the recipient opens it with svc_inbox, and only if a Fabric grant of your organization allows you to send to that address (the fetch is refused otherwise, with the reason). You need a Fabric address of your own first (svc_inbox action address). `expires_hours` (default 24) and `max_opens` (default 1, at most 20) bound it; `from` and `purpose` are shown to the recipient. The send is receipted. Links (without `to`; `code`, `view_only`) are not available yet.",
  credential: 'grant',
  inputSchema: SendInput,
  outputSchema: SendOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    if ((input.path === undefined) === (input.text === undefined)) {
      throw new ServiceError('invalid_request', 'give exactly one of path (a file) and text');
    }
    if (input.to === undefined) {
      throw new ServiceError(
        'link_unavailable',
        'sending as a link is not available yet: give `to`, the Fabric address of the agent to send to',
      );
    }
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
        { field: 'purpose' },
      );
    }
    const bearer = agentOf(deps);
    let plaintext: Uint8Array;
    let filename: string | undefined;
    let contentType: string;
    if (input.path !== undefined) {
      const cwd = process.cwd();
      const path = resolve(cwd, input.path);
      await requireGate(deps, { kind: 'paths', action: 'read', paths: [path] }, { cwd, client: 'svc' });
      plaintext = readSmallFile(path);
      filename = basename(path);
      contentType = contentTypeOf(filename, plaintext);
    } else {
      plaintext = new TextEncoder().encode(input.text);
      if (plaintext.length > SEND_MAX_BYTES) {
        throw new ServiceError('payload_too_large', `text is at most ${SEND_MAX_BYTES} bytes of UTF-8`, {
          limit_bytes: SEND_MAX_BYTES,
        });
      }
      contentType = 'text/plain; charset=utf-8';
    }
    const sent = await sealAndSend(
      { invoker: deps.invoker, bearer },
      {
        to: input.to,
        plaintext,
        filename_hint: filename,
        content_type_hint: contentType,
        ttl_hours: input.expires_hours,
        max_fetches: input.max_opens,
        purpose,
      },
    );
    const next = `tell the recipient (${sent.recipient_kid}) that envelope ${sent.id} is waiting: they open it with svc_inbox. It opens only while a Fabric grant of your organization allows you to send to that address`;
    return {
      text: `sent ${filename ?? 'text'} (${plaintext.length} bytes) to ${sent.recipient_kid} as envelope ${sent.id}, at most ${sent.max_fetches} fetch(es) until ${sent.ttl_at}; receipt ${sent.receipt.receipt_id}. ${next}`,
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
  },
});
