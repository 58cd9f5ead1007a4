// Share links (docs/SHARE.md): the sender's organization makes, lists, burns and revokes them with
// its key; anyone holding a link views its page and opens it, with no credential. The service
// keeps ciphertext and policy only: the key that opens the content stays in the link's fragment.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { Base64, DateTime, ReceiptSchema, ShortText } from './common.ts';
import {
  LINK_CODE_MAX_CHARS,
  LINK_CODE_MIN_CHARS,
  LINK_MAX_BYTES,
  LINK_MAX_OPENS,
  LINK_MAX_TTL_HOURS,
} from '../vocabulary.ts';

const links = lazily(() => import('../links.ts'));

const LINK_STATES = ['active', 'used_up', 'burned', 'revoked', 'locked', 'expired'] as const;

export const LinkIdParam = z.object({
  link_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{22}$/, 'a link id is the 22 characters after /s/ in the link')
    .register(apiDoc, { param: { name: 'link_id', in: 'path' } }),
});

const ContentType = z
  .string()
  .max(128)
  .regex(
    /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*(; ?charset=[a-z0-9_.:-]+)?$/i,
    'content_type must be a media type such as text/plain or image/png',
  );

export const CreateLinkRequest = z
  .object({
    ciphertext_b64: Base64('ciphertext_b64').describe(
      'base64 of the 12-byte IV, the AES-256-GCM ciphertext of the content (additional data `svc-link-v1 content`), and its 16-byte tag',
    ),
    name_ciphertext_b64: Base64('name_ciphertext_b64')
      .refine((s) => s.length <= 1024, 'name_ciphertext_b64 is at most 1024 characters')
      .optional()
      .describe('the file name, sealed the same way under the same key (additional data `svc-link-v1 name`)'),
    size_bytes: z.number().int().min(0).max(LINK_MAX_BYTES),
    content_type: ContentType,
    key_check: z
      .string()
      .regex(/^[0-9a-f]{16}$/, 'key_check must be 16 lowercase hex characters')
      .describe(
        'the first 8 bytes of HMAC-SHA256 under the content key of `svc-link-v1 key check`, in hex: the page checks the link it was given against it before spending an open',
      ),
    sender_name: ShortText(80)
      .optional()
      .describe('who sent it, shown on the page when the sender chose to say'),
    expires_hours: z.number().int().min(1).max(LINK_MAX_TTL_HOURS).optional(),
    max_opens: z.number().int().min(1).max(LINK_MAX_OPENS).optional(),
    burn_after_read: z.boolean().optional(),
    view_only: z.boolean().optional(),
    code: z
      .string()
      .min(LINK_CODE_MIN_CHARS)
      .max(LINK_CODE_MAX_CHARS)
      .optional()
      .describe(
        'an access code the service checks before releasing the ciphertext; kept only as a slow hash',
      ),
  })
  .strict()
  .register(apiDoc, { id: 'CreateLinkRequest' });

export const LinkCreated = z
  .object({
    link_id: z.string(),
    path: z.string().describe('the page of the link; append `#` and the key to make the link'),
    created_at: DateTime,
    expires_at: DateTime,
    max_opens: z.number().int(),
    burn_after_read: z.boolean(),
    view_only: z.boolean(),
    has_code: z.boolean(),
    receipt: ReceiptSchema,
  })
  .register(apiDoc, { id: 'LinkCreated' });

export const LinkStatus = z
  .object({
    link_id: z.string(),
    path: z.string(),
    state: z.enum(LINK_STATES),
    content_type: z.string(),
    size_bytes: z.number().int(),
    created_at: DateTime,
    created_by: z.string(),
    expires_at: DateTime,
    burn_after_read: z.boolean(),
    view_only: z.boolean(),
    has_code: z.boolean(),
    max_opens: z.number().int(),
    opens_used: z.number().int(),
    opens_left: z.number().int(),
    wrong_codes: z.number().int(),
    ended_at: DateTime.nullable(),
    ended_by: z.string().nullable(),
    end_note: z.string().nullable(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'LinkStatus' });

export const LinkAttempt = z
  .object({
    at: DateTime,
    outcome: z.enum(['allow', 'deny']),
    reason: z.string(),
    open_number: z.number().int().nullable(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'LinkAttempt' });

export const LinkDetail = LinkStatus.extend({ attempts: z.array(LinkAttempt) }).register(apiDoc, {
  id: 'LinkDetail',
});

export const LinkList = z
  .object({ links: z.array(LinkStatus), count: z.number().int() })
  .register(apiDoc, { id: 'LinkList' });

export const LinksQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
});

export const LinkEnded = LinkStatus.extend({
  receipt: ReceiptSchema.nullable(),
  already_ended: z.boolean(),
}).register(apiDoc, { id: 'LinkEnded' });

export const RevokeLinkRequest = z
  .object({ reason: ShortText(200).optional() })
  .strict()
  .register(apiDoc, { id: 'RevokeLinkRequest' });

export const LinkView = z
  .object({
    link_id: z.string(),
    state: z.enum(LINK_STATES),
    message: z.string().nullable(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    expires_at: DateTime,
    sender_name: z.string().nullable(),
    view_only: z.boolean(),
    burn_after_read: z.boolean(),
    needs_code: z.boolean(),
    key_check: z.string(),
    opens_left: z.number().int(),
    open_nonce: z.string().nullable().describe('hand back to open; null once the link has ended'),
  })
  .register(apiDoc, { id: 'LinkView' });

export const OpenLinkRequest = z
  .object({
    nonce: z.string().max(128),
    code: z.string().max(LINK_CODE_MAX_CHARS).optional(),
  })
  .strict()
  .register(apiDoc, { id: 'OpenLinkRequest' });

export const LinkOpened = z
  .object({
    link_id: z.string(),
    ciphertext_b64: z.string(),
    name_ciphertext_b64: z.string().nullable(),
    content_type: z.string(),
    size_bytes: z.number().int(),
    view_only: z.boolean(),
    burn_after_read: z.boolean(),
    open_number: z.number().int(),
    opens_left: z.number().int(),
    destroyed: z.boolean().describe('whether this open used the link up and its ciphertext is gone'),
    receipt_id: z.string(),
    receipt: ReceiptSchema,
  })
  .register(apiDoc, { id: 'LinkOpened' });

export const createLink = defineOperation({
  name: 'createLink',
  summary: 'Keep content sealed by the sender, with its policy, behind a new link',
  caller: { kind: 'org', scope: 'share' },
  input: CreateLinkRequest,
  output: LinkCreated,
  run: async (ctx, caller, input) => (await links()).createLink(ctx, caller, input),
});

export const listLinks = defineOperation({
  name: 'listLinks',
  summary: "The organization's links, newest first: state, opens used and left, expiry",
  caller: { kind: 'org', scope: 'share' },
  input: LinksQuery,
  output: LinkList,
  run: async (ctx, caller, input) => (await links()).listLinks(ctx, caller, input.limit),
});

export const linkStatus = defineOperation({
  name: 'linkStatus',
  summary: 'One link: its state, and every open attempt with its receipt',
  caller: { kind: 'org', scope: 'share' },
  input: LinkIdParam,
  output: LinkDetail,
  run: async (ctx, caller, input) => (await links()).linkStatus(ctx, caller, input.link_id),
});

export const burnLink = defineOperation({
  name: 'burnLink',
  summary: 'Destroy a link now: its ciphertext is deleted, with a receipt',
  caller: { kind: 'org', scope: 'share' },
  input: LinkIdParam,
  output: LinkEnded,
  run: async (ctx, caller, input) => (await links()).endLink(ctx, caller, input.link_id, 'burned'),
});

export const revokeLink = defineOperation({
  name: 'revokeLink',
  summary: "Revoke one of the organization's links by policy, with a reason its page shows",
  caller: { kind: 'org', scope: 'governance' },
  input: RevokeLinkRequest.extend(LinkIdParam.shape),
  output: LinkEnded,
  run: async (ctx, caller, input) =>
    (await links()).endLink(ctx, caller, input.link_id, 'revoked', input.reason),
});

export const viewLink = defineOperation({
  name: 'viewLink',
  summary: 'What a link holds, for its page: no content, and no open is counted',
  caller: { kind: 'none' },
  input: LinkIdParam,
  output: LinkView,
  run: async (ctx, _caller, input) => (await links()).viewLink(ctx, input.link_id),
});

export const openLink = defineOperation({
  name: 'openLink',
  summary: "Open a link with its page's nonce (and code): releases the ciphertext, with a receipt",
  caller: { kind: 'none' },
  input: OpenLinkRequest.extend(LinkIdParam.shape),
  output: LinkOpened,
  run: async (ctx, _caller, { link_id, ...input }) => (await links()).openLink(ctx, link_id, input),
});
