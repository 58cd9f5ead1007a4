// Contracts shared by several domains' operations: key ids, timestamps, text and base64 fields,
// the one error body, the signed receipt and an agent's handle in a path. It imports no operations
// file, so every domain's file can take these without an import cycle.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';

const KID = /^[0-9a-f]{16}$/;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export const Kid = z
  .string()
  .regex(KID, 'must be 16 lowercase hex characters')
  .register(apiDoc, { example: '3f9a0c1d2e4b5a69' });

/** A padded standard-base64 field; `name` goes into its messages so the caller knows which one. */
export const Base64 = (name: string) =>
  z
    .string()
    .min(1, `${name} must not be empty`)
    .regex(BASE64, `${name} must be standard base64`)
    .refine((s) => s.length % 4 === 0, `${name} must be padded base64 (length a multiple of 4)`);

/** Free text that is more than whitespace, up to `max` characters. */
export const ShortText = (max: number) => z.string().trim().min(1).max(max);

/** An ISO 8601 timestamp with its offset. */
export const DateTime = z.iso.datetime({ offset: true });

export const ErrorBody = z
  .looseObject({
    error: z.string().register(apiDoc, { example: 'invalid_request' }),
    message: z.string().register(apiDoc, { example: 'columns: must contain at least 1 element' }),
  })
  .register(apiDoc, {
    id: 'Error',
    description: 'Every error: a closed code, a message saying what to do, plus details',
  });

export const ReceiptSchema = z
  .object({
    receipt_id: z.string(),
    chain: z.enum(['service', 'audit']),
    chain_index: z.number().int().positive(),
    signature_hex: z.string().regex(/^[0-9a-f]{128}$/),
    signing_pubkey_hex: z.string().regex(/^[0-9a-f]{64}$/),
    signing_kid: Kid,
    signed_at: DateTime,
    hash: z.string().regex(/^[0-9a-f]{64}$/),
    payload: z.looseObject({ v: z.number(), id: z.string(), kind: z.string() }),
  })
  .register(apiDoc, {
    id: 'Receipt',
    description: 'Ed25519 signature over the RFC 8785 bytes of `payload`; see docs/PROOFS.md',
  });

export const HandleParam = z.object({
  handle: z
    .string()
    .regex(/^[a-z0-9-]{1,64}$/)
    .register(apiDoc, {
      param: { name: 'handle', in: 'path' },
      description: "the agent's handle as its grant gave it: lower-case letters, digits and -",
      example: 'support-bot',
    }),
});
