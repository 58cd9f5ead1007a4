// svc_inbox: the agent's Fabric inbox on its own computer. Its address (enrolling a key kept in
// this computer's vault on first use), what arrived (metadata only), opening one envelope (fetched
// through the service's gate, decrypted here, the plaintext answered to the caller alone) and who
// may send to it. The rules live in the core (src/backend/fabric-inbox.ts, the fetch gate).
import { closeSync, existsSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ServiceError } from '../backend/errors.ts';
import {
  arrival,
  asText,
  ensureAddress,
  fetchAndOpen,
  listArrivals,
  permittedSenders,
  textualHint,
  type FabricAgent,
} from '../backend/fabric-inbox.ts';
import { agentOf } from './credentials.ts';
import { requireGate, cwdField } from './gate.ts';
import { OPEN_TEXT_MAX_BYTES } from './lock.ts';
import { defineTool, type ToolDeps } from './registry.ts';

/** The AES-GCM tag the ciphertext carries beyond the plaintext (RFC 9180 §7.3, Nt of AES-256-GCM). */
const GCM_TAG_BYTES = 16;

const InboxInput = z
  .object({
    action: z
      .enum(['address', 'arrivals', 'open', 'senders'])
      .describe(
        'address: your Fabric address (enrolls on first use); arrivals: envelopes sent to you; open: fetch and decrypt one (needs id); senders: who may send to you',
      ),
    id: z
      .uuid('id must be an envelope id (a UUID) from arrivals')
      .optional()
      .describe('for open: the envelope id'),
    out: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'for open: write the content to this new file (it must not exist; the read gate must let you write it) instead of answering it as text',
      ),
    cwd: cwdField("where a relative `out` starts and the project is found (default: the server's folder)"),
  })
  .strict();

const Arrival = z.object({
  id: z.string(),
  sender_kid: z.string(),
  filename_hint: z.string().nullable(),
  content_type_hint: z.string().nullable(),
  purpose: z.string().nullable(),
  size_bytes: z.number().int(),
  status: z.enum(['available', 'expired', 'fully_fetched']),
  expires_at: z.string(),
  fetches_left: z.number().int(),
});

const Sender = z.object({
  grant_id: z.string(),
  issuer_org_id: z.string(),
  label: z.string().nullable(),
  allowed_sender_kids: z.array(z.string()).describe('empty: every enrolled agent of the issuer'),
  status: z.enum(['active', 'expired', 'revoked']),
  expires_at: z.string(),
});

const Opened = z.object({
  envelope_id: z.string(),
  sender_kid: z.string(),
  filename_hint: z.string().nullable(),
  content_type_hint: z.string().nullable(),
  purpose: z.string().nullable(),
  bytes: z.number().int().describe('size of the content (for an unopened one, about the size)'),
  released_to: z
    .enum(['text', 'file', 'nothing'])
    .describe('nothing: not fetched (give `out`), or fetched but not text'),
  out_path: z.string().nullable(),
  text: z.string().nullable().describe('the content, when it is text and no `out` was given'),
  receipt_id: z.string().nullable().describe('the allow receipt of the fetch; null when nothing was fetched'),
  fetches_left: z.number().int(),
});

const InboxOutput = z.object({
  action: z.enum(['address', 'arrivals', 'open', 'senders']),
  address: z
    .string()
    .describe('your Fabric address (16 hex, its key id): what senders give svc_send as `to`'),
  enrolled_now: z.boolean().optional(),
  key_location: z.string().optional().describe('where your private key is kept (never the key)'),
  arrivals: z.array(Arrival).optional(),
  opened: Opened.optional(),
  senders: z.array(Sender).optional(),
  next: z.string(),
});
type InboxAnswer = z.infer<typeof InboxOutput>;

function agentOfDeps(deps: ToolDeps): FabricAgent {
  return { invoker: deps.invoker, bearer: agentOf(deps), keys: deps.fabricKeys };
}

/** Writes `bytes` to a new file only (mode 0600, as the content was sealed), synced before the answer. */
function writeNewFile(path: string, bytes: Uint8Array): void {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ServiceError(
      code === 'EEXIST' ? 'conflict' : 'invalid_request',
      code === 'EEXIST'
        ? `${path} exists: give a new file as out`
        : `cannot create ${path} (${code ?? 'error'}); its folder must exist`,
    );
  }
  try {
    writeSync(fd, bytes);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

async function open(input: z.infer<typeof InboxInput>, deps: ToolDeps, agent: FabricAgent) {
  if (input.id === undefined) {
    throw new ServiceError('invalid_request', 'open needs the envelope id: list them with action `arrivals`');
  }
  const cwd = input.cwd ?? process.cwd();
  const item = await arrival(agent, input.id);
  const about = Math.max(0, item.size_bytes - GCM_TAG_BYTES);
  const outPath = input.out === undefined ? undefined : resolve(cwd, input.out);
  if (outPath !== undefined) {
    // The write is decided before the fetch, so a refused file never spends one of the fetches.
    await requireGate(
      deps,
      { kind: 'paths', action: 'write', paths: [outPath] },
      { cwd, client: deps.client },
    );
    if (existsSync(outPath)) throw new ServiceError('conflict', `${outPath} exists: give a new file as out`);
  } else if (!textualHint(item.content_type_hint) || about > OPEN_TEXT_MAX_BYTES) {
    const what = item.content_type_hint ?? 'content';
    const next = `call svc_inbox again with action open, id ${item.id} and out (a new file path) to write it; nothing was fetched`;
    return {
      address: item.recipient_kid,
      text: `${item.id} holds about ${about} bytes of ${what}${item.filename_hint ? ` (${item.filename_hint})` : ''}, too much or not text to answer here. ${next}`,
      opened: {
        envelope_id: item.id,
        sender_kid: item.sender_kid,
        filename_hint: item.filename_hint,
        content_type_hint: item.content_type_hint,
        purpose: item.purpose,
        bytes: about,
        released_to: 'nothing' as const,
        out_path: null,
        text: null,
        receipt_id: null,
        fetches_left: item.fetches_remaining,
      },
      next,
    };
  }
  const got = await fetchAndOpen(agent, input.id);
  const base = {
    envelope_id: got.id,
    sender_kid: got.sender_kid,
    filename_hint: got.filename_hint,
    content_type_hint: got.content_type_hint,
    purpose: got.purpose,
    bytes: got.plaintext.length,
    receipt_id: got.receipt_id,
    fetches_left: got.fetches_remaining,
  };
  const left = `${got.fetches_remaining} fetch(es) left`;
  const address = got.recipient_kid;
  if (outPath !== undefined) {
    writeNewFile(outPath, got.plaintext);
    const next = 'the file is plaintext: remove it when you are done, or seal it with svc_protect';
    return {
      address,
      text: `opened ${got.id} from ${got.sender_kid} to ${outPath}: ${got.plaintext.length} bytes, receipt ${got.receipt_id}, ${left}. ${next}`,
      opened: { ...base, released_to: 'file' as const, out_path: outPath, text: null },
      next,
    };
  }
  const text = asText(got.plaintext);
  if (text === null || got.plaintext.length > OPEN_TEXT_MAX_BYTES) {
    // The sender's hint said text; the bytes are not. Fetched, so say plainly what it cost.
    const next =
      got.fetches_remaining > 0
        ? `call svc_inbox again with action open, id ${got.id} and out (a new file path) to write it`
        : 'no fetches are left: ask the sender to send it again, then open it with out';
    return {
      address,
      text: `${got.id} was fetched (receipt ${got.receipt_id}, ${left}) but is ${got.plaintext.length} bytes that are not text, so nothing is shown. ${next}`,
      opened: { ...base, released_to: 'nothing' as const, out_path: null, text: null },
      next,
    };
  }
  const next = 'the text is for this task only: do not copy it into files, logs or messages';
  return {
    address,
    text: `opened ${got.id} from ${got.sender_kid}${got.purpose ? ` (${got.purpose})` : ''}: ${got.plaintext.length} bytes, receipt ${got.receipt_id}, ${left}. ${next}\n\n${text}`,
    opened: { ...base, released_to: 'text' as const, out_path: null, text },
    next,
  };
}

export const svcInbox = defineTool({
  name: 'svc_inbox',
  group: 'share',
  title: 'Fabric inbox',
  description:
    "Your Fabric inbox, as the agent of this server's grant token. action `address` answers your Fabric address (16 hex), enrolling on first use with a key pair made and kept in this computer's vault (the private key never leaves it): give the address to whoever sends to you. `arrivals` lists envelopes sent to you (metadata only). `open` with an envelope id fetches it through the service's gate (each fetch is receipted and counts against its limit) and decrypts it here: text comes back in the answer; for a file or anything not text give `out`, a new file the read gate lets you write. A refused fetch says why and who can change it, with its receipt id. `senders` lists the grants that let other organizations' agents send to you. Send with svc_send and `to`.",
  credential: 'grant',
  inputSchema: InboxInput,
  outputSchema: InboxOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    const agent = agentOfDeps(deps);
    if (input.action !== 'open' && (input.id !== undefined || input.out !== undefined)) {
      throw new ServiceError('invalid_request', 'id and out go with action open only');
    }
    switch (input.action) {
      case 'address': {
        const address = await ensureAddress(agent);
        const next =
          'give your address to whoever sends to you: an owner of their organization must first grant it (POST /api/v1/fabric-grants with subject_kid your address), then they send with svc_send and `to` your address. See what arrived with action arrivals';
        const structured: InboxAnswer = {
          action: 'address',
          address: address.kid,
          enrolled_now: address.enrolled_now,
          key_location: address.key_location,
          next,
        };
        return {
          text: `your Fabric address is ${address.kid}${address.enrolled_now ? ' (enrolled now; its private key is kept in this computer’s vault)' : ''}. ${next}`,
          structured,
        };
      }
      case 'arrivals': {
        const inbox = await listArrivals(agent);
        const arrivals = inbox.items.map((i) => ({
          id: i.id,
          sender_kid: i.sender_kid,
          filename_hint: i.filename_hint,
          content_type_hint: i.content_type_hint,
          purpose: i.purpose,
          size_bytes: i.size_bytes,
          status: i.status,
          expires_at: i.ttl_at,
          fetches_left: i.fetches_remaining,
        }));
        const available = arrivals.filter((a) => a.status === 'available');
        const next = available.length
          ? `open one with action open and its id (each open spends one fetch)`
          : 'nothing to open now';
        const lines = arrivals.map(
          (a) =>
            `${a.id} from ${a.sender_kid}: ${a.filename_hint ?? a.content_type_hint ?? 'content'}, ${a.size_bytes} bytes, ${a.status}, ${a.fetches_left} fetch(es) left, expires ${a.expires_at}${a.purpose ? `; ${a.purpose}` : ''}`,
        );
        return {
          text: [
            `${arrivals.length} envelope(s) for ${inbox.kid}, ${available.length} available`,
            ...lines,
            next,
          ].join('\n'),
          structured: { action: 'arrivals', address: inbox.kid, arrivals, next } satisfies InboxAnswer,
        };
      }
      case 'open': {
        const result = await open(input, deps, agent);
        return {
          text: result.text,
          structured: {
            action: 'open',
            address: result.address,
            opened: result.opened,
            next: result.next,
          } satisfies InboxAnswer,
        };
      }
      case 'senders': {
        const listed = await permittedSenders(agent);
        const senders = listed.grants.map((g) => ({
          grant_id: g.grant_id,
          issuer_org_id: g.issuer_org_id,
          label: g.label,
          allowed_sender_kids: g.allowed_sender_kids,
          status: g.status,
          expires_at: g.expires_at,
        }));
        const active = senders.filter((s) => s.status === 'active');
        const next = active.length
          ? 'only these may send to you; an envelope from anyone else is refused at fetch'
          : `nobody may send to you yet: an owner of a sender's organization must grant your address (POST /api/v1/fabric-grants with subject_kid ${listed.kid})`;
        const lines = senders.map(
          (s) =>
            `${s.grant_id} from organization ${s.issuer_org_id}${s.label ? ` (${s.label})` : ''}: ${s.allowed_sender_kids.length ? s.allowed_sender_kids.join(', ') : 'any of its agents'}, ${s.status}, until ${s.expires_at}`,
        );
        return {
          text: [`${active.length} active grant(s) for ${listed.kid}`, ...lines, next].join('\n'),
          structured: { action: 'senders', address: listed.kid, senders, next } satisfies InboxAnswer,
        };
      }
    }
  },
});
