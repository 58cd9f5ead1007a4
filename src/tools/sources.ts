// Govern tools for external APIs: register a source (its credential kept sealed by the service),
// list sources, and call them, reads freely and writes only after the person confirms.
import { z } from 'zod';
import {
  SourceCallRequest,
  SourceCallResult,
  SourceList,
  SourceNameParam,
  SourceRequest,
  RegisteredSource,
} from '../backend/operations/sources.ts';
import { defineTool, noAnswer } from './registry.ts';
import { ops } from '../backend/operations/index.ts';
import { ownerOf } from './credentials.ts';
import { ServiceError } from '../backend/errors.ts';
import { READ_METHODS, WRITE_METHODS } from '../backend/vocabulary.ts';
import { printable } from '../backend/printable.ts';

export const svcConnectSource = defineTool({
  name: 'svc_connect_source',
  group: 'govern',
  title: 'Register an external API',
  description:
    'Registers an external HTTP API the organization uses: a name, its base URL, how it authenticates (bearer token, a named header, or basic user:password) and the credential. The service seals the credential and injects it into calls made with svc_api_read and svc_api_write; it is never returned, shown or logged. A source reaches public addresses only: for a service on this machine or the local network (localhost, 10.x, 192.168.x and the like), pass allow_private_network: true, and only when the person asked for that service. List sources with svc_api_list.',
  credential: 'owner',
  inputSchema: SourceRequest,
  outputSchema: RegisteredSource,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (input, deps) => {
    const source = await deps.invoker.invoke(ops.registerSource, ownerOf(deps), input);
    const reach = source.allow_private_network ? ' It may reach private and loopback addresses.' : '';
    return {
      text: `Registered ${source.name} at ${source.base_url} (${source.scheme}); the credential is sealed and will not be shown again.${reach} Receipt: ${source.receipt_id}`,
      structured: source,
    };
  },
});

export const svcApiList = defineTool({
  name: 'svc_api_list',
  group: 'govern',
  title: 'List external APIs',
  description:
    'Lists the external APIs registered with svc_connect_source: name, base URL and authentication scheme. Credentials are never shown. Call one with svc_api_read (GET, HEAD) or svc_api_write (POST, PUT, PATCH, DELETE).',
  credential: 'owner',
  inputSchema: z.object({}).strict(),
  outputSchema: SourceList,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, deps) => {
    const list = await deps.invoker.invoke(ops.listSources, ownerOf(deps), {});
    return {
      text: list.count
        ? list.sources
            .map(
              (s) =>
                `- ${s.name}: ${s.base_url} (${s.scheme}${s.allow_private_network ? ', private network allowed' : ''})`,
            )
            .join('\n')
        : 'No sources yet: register one with svc_connect_source.',
      structured: list,
    };
  },
});

const callShape = {
  source: SourceNameParam.shape.name,
  path: SourceCallRequest.shape.path,
  query: SourceCallRequest.shape.query,
};

function describeCall(r: { method: string; url: string; status: number; body: string; truncated: boolean }) {
  return `${r.method} ${r.url} -> ${r.status}${r.truncated ? ' (body truncated)' : ''}\n${r.body}`;
}

export const svcApiRead = defineTool({
  name: 'svc_api_read',
  group: 'govern',
  title: 'Read from an external API',
  description:
    "Sends a GET or HEAD to a registered API, under its base URL, with the API's credential injected by the service; the answer (status and up to 64 KiB of body) comes back with the credential masked, and the call is receipted. Use svc_api_list to find sources; to change anything use svc_api_write.",
  credential: 'owner',
  inputSchema: z.object({ ...callShape, method: z.enum(READ_METHODS).default('GET') }).strict(),
  outputSchema: SourceCallResult,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async (input, deps) => {
    const result = await deps.invoker.invoke(ops.callSource, ownerOf(deps), input);
    return { text: describeCall(result), structured: result };
  },
});

export const svcApiWrite = defineTool({
  name: 'svc_api_write',
  group: 'govern',
  title: 'Change something through an external API',
  description:
    "Sends a POST, PUT, PATCH or DELETE to a registered API with the API's credential injected by the service. The person confirms first: through the client's confirmation form when it supports one, otherwise by the caller passing confirmed: true after asking the person. The answer comes back with the credential masked, and the call is receipted.",
  credential: 'owner',
  inputSchema: z
    .object({
      ...callShape,
      method: z.enum(WRITE_METHODS),
      body: SourceCallRequest.shape.body,
      confirmed: z.boolean().optional(),
    })
    .strict(),
  outputSchema: SourceCallResult,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  handler: async (input, deps) => {
    const owner = ownerOf(deps);
    const { confirmed: said, ...call } = input;
    // The client asks the person when it can; otherwise the caller's `confirmed` says they were asked.
    const asked = await deps.confirm(printable(`${call.method} ${call.path} on ${call.source}: go ahead?`));
    if (asked === 'declined')
      throw new ServiceError('forbidden', 'the person declined this change; nothing was sent');
    // A form closed without an answer may have been shut by the person: the agent's word cannot stand in.
    if (asked === 'closed')
      throw new ServiceError(
        'forbidden',
        `a write needs the person's yes, and ${noAnswer(asked)}: nothing was sent`,
      );
    const confirmed = asked === 'accepted' || said === true;
    const result = await deps.invoker.invoke(ops.callSource, owner, { ...call, confirmed });
    return { text: describeCall(result), structured: result };
  },
});
