// Exposures (docs/SHARE.md, Exposures): this computer's owner offers a folder for a time, lists and
// ends exposures in process (`local`); a partner holding the link lists the files the read gate
// lets out and asks for clean copies of them, with no credential.
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { defineOperation, lazily } from '../operation.ts';
import { DateTime, ReceiptSchema, ShortText } from './common.ts';
import {
  EXPOSURE_MAX_COPIES,
  EXPOSURE_MAX_TTL_HOURS,
  LINK_CODE_MAX_CHARS,
  LINK_CODE_MIN_CHARS,
} from '../vocabulary.ts';

const exposures = lazily(() => import('../exposures.ts'));

const EXPOSURE_STATES = ['active', 'used_up', 'ended', 'locked', 'expired'] as const;

export const ExposureIdParam = z.object({
  exposure_id: z
    .string()
    .regex(/^[A-Za-z0-9_-]{22}$/, 'an exposure id is the 22 characters after /x/ in the link')
    .register(apiDoc, { param: { name: 'exposure_id', in: 'path' } }),
});

const By = ShortText(120).describe('who asks, as the receipt names them (default `owner`)');

export const StartExposureRequest = z
  .object({
    folder: z
      .string()
      .min(1)
      .max(4096)
      .refine(isAbsolute, 'folder must be an absolute path')
      .describe('the folder of this computer whose files a partner may ask clean copies of'),
    expires_hours: z.number().int().min(1).max(EXPOSURE_MAX_TTL_HOURS).optional(),
    max_copies: z.number().int().min(1).max(EXPOSURE_MAX_COPIES).optional(),
    code: z
      .string()
      .min(LINK_CODE_MIN_CHARS)
      .max(LINK_CODE_MAX_CHARS)
      .optional()
      .describe('an access code every copy needs; kept only as a slow hash'),
    by: By.optional(),
  })
  .strict();

export const ExposureStatus = z
  .object({
    exposure_id: z.string(),
    path: z.string().describe('the partner page; the link is the service address followed by it'),
    folder: z.string(),
    state: z.enum(EXPOSURE_STATES),
    created_at: DateTime,
    created_by: z.string(),
    expires_at: DateTime,
    has_code: z.boolean(),
    max_copies: z.number().int(),
    copies_used: z.number().int(),
    copies_left: z.number().int(),
    wrong_codes: z.number().int(),
    ended_at: DateTime.nullable(),
    ended_by: z.string().nullable(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'ExposureStatus' });

export const ExposureStarted = ExposureStatus.extend({ receipt: ReceiptSchema });

export const ExposureList = z.object({ exposures: z.array(ExposureStatus), count: z.number().int() });

export const ExposureEnded = ExposureStatus.extend({
  receipt: ReceiptSchema.nullable(),
  already_ended: z.boolean(),
});

export const ExposedFiles = z
  .object({
    exposure_id: z.string(),
    expires_at: DateTime,
    needs_code: z.boolean(),
    copies_left: z.number().int(),
    files: z.array(
      z.object({
        file: z.string().describe('relative to the folder, with `/` between parts: ask for it by this name'),
        bytes: z.number().int(),
      }),
    ),
    truncated: z.boolean().describe('the folder holds more files than one listing looks at'),
    nonce: z.string().describe('hand back with each copy request; good for an hour'),
  })
  .register(apiDoc, { id: 'ExposedFiles' });

export const CopyExposedFileRequest = z
  .object({
    nonce: z.string().max(128),
    code: z.string().max(LINK_CODE_MAX_CHARS).optional(),
    file: z.string().min(1).max(4096).describe('a file as the listing names it'),
  })
  .strict()
  .register(apiDoc, { id: 'CopyExposedFileRequest' });

export const ExposedFileCopy = z
  .object({
    exposure_id: z.string(),
    file: z.string(),
    text: z.string().describe('the clean copy: every value found replaced by a typed token'),
    values_replaced: z.number().int(),
    tokens_by_type: z
      .record(z.string(), z.number().int())
      .describe('distinct values per token type: {"EMAIL": 2} means [EMAIL_1] and [EMAIL_2]'),
    copy_number: z.number().int(),
    copies_left: z.number().int(),
    used_up: z.boolean().describe('whether this copy was the last the exposure gives'),
    receipt_id: z.string(),
    receipt: ReceiptSchema,
  })
  .register(apiDoc, { id: 'ExposedFileCopy' });

export const startExposure = defineOperation({
  name: 'startExposure',
  summary: 'Offer a folder of this computer to a partner for a time: clean copies of what the gate lets out',
  caller: { kind: 'local' },
  input: StartExposureRequest,
  output: ExposureStarted,
  run: async (ctx, _caller, input) => (await exposures()).startExposure(ctx, input),
});

export const listExposures = defineOperation({
  name: 'listExposures',
  summary: "This computer's exposures, newest first: folder, state, copies used and left",
  caller: { kind: 'local' },
  input: z.object({ limit: z.number().int().min(1).max(200).optional() }).strict(),
  output: ExposureList,
  run: async (ctx, _caller, input) => (await exposures()).listExposures(ctx, input.limit),
});

export const endExposure = defineOperation({
  name: 'endExposure',
  summary: 'End an exposure now, with a receipt: nothing more is listed or copied',
  caller: { kind: 'local' },
  input: ExposureIdParam.extend({ by: By.optional() }).strict(),
  output: ExposureEnded,
  run: async (ctx, _caller, input) => (await exposures()).endExposure(ctx, input.exposure_id, input.by),
});

export const listExposedFiles = defineOperation({
  name: 'listExposedFiles',
  summary: 'The files of an exposure a partner may ask for, with a nonce to ask with; counts nothing',
  caller: { kind: 'none' },
  input: ExposureIdParam,
  output: ExposedFiles,
  run: async (ctx, _caller, input) => (await exposures()).listExposedFiles(ctx, input.exposure_id),
});

export const copyExposedFile = defineOperation({
  name: 'copyExposedFile',
  summary: 'A clean copy of one listed file, made now and served once, with a receipt',
  caller: { kind: 'none' },
  input: CopyExposedFileRequest.extend(ExposureIdParam.shape),
  output: ExposedFileCopy,
  run: async (ctx, _caller, { exposure_id, ...input }) =>
    (await exposures()).copyExposedFile(ctx, exposure_id, input),
});
