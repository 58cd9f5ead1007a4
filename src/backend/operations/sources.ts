// Source operations and the zod schemas they take and answer: external HTTP APIs whose credential
// the service keeps sealed, injects into calls and masks in every answer.
import { z } from 'zod';
import { apiDoc } from '../api-doc.ts';
import { MASK_WINDOW } from '../../scan/mask.ts';
import { defineOperation, lazily } from '../operation.ts';
import { READ_METHODS, SOURCE_SCHEMES, WRITE_METHODS } from '../vocabulary.ts';

const sources = lazily(() => import('../sources.ts'));

/**
 * A call's body: JSON (an object or array is sent as JSON, a string as text). Its nesting is bounded
 * with every input's, before any schema (json-shape.ts): 64 levels counted from the input itself.
 */
const CallBody = z.unknown().optional();

export const SourceRequest = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'name is lowercase letters, digits, - and _'),
    base_url: z.url({ protocol: /^https?$/ }).max(2048),
    scheme: z.enum(SOURCE_SCHEMES),
    header_name: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/)
      .optional(),
    credential: z
      .string()
      .min(
        MASK_WINDOW,
        `credential must be at least ${MASK_WINDOW} characters: a shorter one could not be told apart from ordinary text in answers, so it could not be masked reliably`,
      )
      .max(8192),
    allow_private_network: z.boolean().optional().register(apiDoc, {
      description:
        'Let this source reach loopback, private (RFC 1918, CGNAT, IPv6 unique local), link-local and other special addresses, for a service on this machine or network. Without it they are refused: at registration for an IP literal or `localhost`, at each call for whatever the host name resolves to.',
    }),
  })
  .strict()
  .register(apiDoc, { id: 'SourceRequest' });

export const SourceView = z
  .object({
    source_id: z.string(),
    name: z.string(),
    base_url: z.string(),
    scheme: z.enum(SOURCE_SCHEMES),
    header_name: z.string().nullable(),
    credential: z.string(),
    allow_private_network: z.boolean(),
    created_at: z.string(),
  })
  .register(apiDoc, { id: 'Source' });

export const RegisteredSource = SourceView.extend({ receipt_id: z.string() }).register(apiDoc, {
  id: 'RegisteredSource',
});

export const SourceList = z
  .object({ ok: z.boolean(), count: z.number().int(), sources: z.array(SourceView) })
  .register(apiDoc, { id: 'SourceList' });

export const SourceCallRequest = z
  .object({
    method: z.enum([...READ_METHODS, ...WRITE_METHODS]),
    path: z.string().max(2048),
    query: z.record(z.string().max(128), z.string().max(2048)).optional(),
    body: CallBody,
    /** A write (POST, PUT, PATCH, DELETE) is sent only with `true`: the person confirmed it. */
    confirmed: z.boolean().optional(),
  })
  .strict()
  .register(apiDoc, { id: 'SourceCallRequest' });

export const UseRequest = z
  .object({
    source: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
    method: z.enum([...READ_METHODS, ...WRITE_METHODS]),
    path: z.string().max(2048),
    query: z.record(z.string().max(128), z.string().max(2048)).optional(),
    body: CallBody,
  })
  .strict()
  .register(apiDoc, { id: 'UseRequest' });

export const SourceNameParam = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/)
    .register(apiDoc, { param: { name: 'name', in: 'path' } }),
});

export const SourceCallResult = z
  .object({
    source: z.string(),
    method: z.string(),
    url: z.string(),
    status: z.number().int(),
    content_type: z.string().nullable(),
    body: z.string(),
    truncated: z.boolean(),
    receipt_id: z.string(),
  })
  .register(apiDoc, { id: 'SourceCallResult' });

export const registerSource = defineOperation({
  name: 'registerSource',
  summary: 'Register an external HTTP API; its credential is sealed and never returned',
  caller: { kind: 'org', scope: 'governance' },
  input: SourceRequest,
  output: RegisteredSource,
  run: async (ctx, caller, input) => (await sources()).registerSource(ctx, caller, input),
});

export const listSources = defineOperation({
  name: 'listSources',
  summary: 'Registered external APIs (credentials never shown)',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: SourceList,
  run: async (ctx, caller) => (await sources()).listSources(ctx, caller),
});

export const callSource = defineOperation({
  name: 'callSource',
  summary: 'Call a registered API with its credential injected; the answer is masked and receipted',
  caller: { kind: 'org', scope: 'governance' },
  input: UseRequest.extend({ confirmed: SourceCallRequest.shape.confirmed }),
  output: SourceCallResult,
  run: async (ctx, caller, input) => (await sources()).callSource(ctx, caller, input),
});

export const useCapability = defineOperation({
  name: 'useCapability',
  summary: 'An agent calls a source its grant allows; the service injects the credential',
  caller: { kind: 'agent' },
  input: UseRequest,
  output: SourceCallResult,
  run: async (ctx, agent, input) => (await sources()).useCapability(ctx, agent, input),
});
