// Calling an operation: in this process over the local store, or on a remote `svc serve` through
// the operation's route. Both answer the same results and throw the same ServiceError.
import { nowIso, type Context } from './context.ts';
import { authenticate, type Principal } from './credentials.ts';
import { ServiceError, errorFromBody, invalidInput } from './errors.ts';
import { inputErrorMap } from './input-messages.ts';
import { checkJsonShape } from './json-shape.ts';
import { callerFor, takesCredential, type Operation } from './operation.ts';
import { requestOf, routeOf, type Route } from './routes.ts';

/** Where the service behind an invoker lives, for status answers. */
export type ServiceLocation =
  | {
      kind: 'local';
      data_dir: string;
      key_store: string;
      key_store_kind: 'keychain' | 'file';
      key_store_note: string | null;
    }
  | { kind: 'remote'; base_url: string };

export interface Invoker {
  readonly location: ServiceLocation;
  /** Authenticates `bearer` (`Bearer ...`) as the operation's caller, then runs it. */
  invoke<I, R>(operation: Operation<I, R>, bearer: string | undefined, input: I): Promise<Awaited<R>>;
}

/**
 * Runs an operation whose input is already valid, as `principal` (authenticated by the caller):
 * the one place an operation's caller is checked.
 */
export async function runAs<I, R>(
  ctx: Context,
  operation: Operation<I, R>,
  principal: Principal | undefined,
  input: I,
): Promise<Awaited<R>> {
  try {
    const caller = await callerFor(ctx, operation.caller, principal);
    return await operation.run(ctx, caller as never, input);
  } catch (error) {
    throw await recordRefusal(ctx, operation, principal, input, error);
  }
}

/** Refusals that concern what was sent, not who sent it or what is stored: no receipt. */
const INPUT_REFUSALS = new Set([
  'invalid_request',
  'invalid_json',
  'unsupported_media_type',
  'payload_too_large',
  'unauthorized',
]);

/**
 * Every refusal of an authenticated caller leaves one record, and this is where a refusal that has
 * none yet gets it. Most are receipted where they are decided, with what was asked. An operation
 * that keeps its own record of refusals (`recordRefusal`: a read of table rows, on the audit chain)
 * records the rest, bad input included. Any other (a credential of the wrong kind or scope, another
 * agent's handle) is receipted here, naming the caller, the operation and the reason, so that a new
 * operation cannot refuse without a record. Bad input to other operations leaves none.
 *
 * Adapters call it for refusals they decide before `runAs` (the HTTP adapter's validation), with
 * the input as sent. A refusal that carries its record already is answered as it is, so calling it
 * twice for one refusal records it once.
 */
export async function recordRefusal(
  ctx: Context,
  operation: Operation,
  principal: Principal | undefined,
  input: unknown,
  error: unknown,
): Promise<unknown> {
  if (
    !principal ||
    !(error instanceof ServiceError) ||
    error.status < 400 ||
    error.status >= 500 ||
    // Recorded where it was decided: a receipt, or (for reads of table rows) an audit row.
    'receipt_id' in error.details ||
    'audit' in error.details
  ) {
    return error;
  }
  const own = await operation.recordRefusal?.(ctx, principal, input, error);
  if (own) return new ServiceError(error.code, error.message, { ...error.details, ...own });
  if (INPUT_REFUSALS.has(error.code)) return error;
  const receipt = await ctx.chains.append('service', {
    kind: 'operation.refused',
    org_id: principal.orgId,
    signed_at: nowIso(ctx),
    body: {
      operation: operation.name,
      reason: error.code,
      org_id: principal.orgId,
      ...(principal.kind === 'agent'
        ? { agent_id: principal.agentId, handle: principal.handle, jti: principal.jti }
        : { key_id: principal.keyId }),
    },
  });
  return new ServiceError(error.code, error.message, { ...error.details, receipt_id: receipt.receipt_id });
}

/**
 * Parses an input against the operation's schema; a bad input is invalid_request, its messages
 * saying what each field takes (input-messages.ts). The input's shape is checked first (see
 * json-shape.ts): a schema would drop a `__proto__` key unseen.
 */
export function parseInput<I>(operation: Operation<I>, input: unknown): I {
  checkJsonShape(input);
  const parsed = operation.input.safeParse(input, { error: inputErrorMap });
  if (!parsed.success) throw invalidInput(parsed.error);
  return parsed.data;
}

/** The core in this process. */
export function localInvoker(ctx: Context, location: Extract<ServiceLocation, { kind: 'local' }>): Invoker {
  return {
    location,
    async invoke(operation, bearer, input) {
      const principal = takesCredential(operation.caller) ? await authenticate(ctx, bearer) : undefined;
      let valid: unknown;
      try {
        valid = parseInput(operation, input);
      } catch (error) {
        throw await recordRefusal(ctx, operation, principal, input, error);
      }
      return (await runAs(ctx, operation, principal, valid)) as never;
    },
  };
}

/** A remote `svc serve`: each operation through its route, over undici. */
export function remoteInvoker(baseUrl: string): Invoker {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    location: { kind: 'remote', base_url: base },
    async invoke(operation, bearer, input) {
      let valid: unknown;
      try {
        valid = parseInput(operation, input);
      } catch (error) {
        // An attempt the service records when refused (a read's audit row) goes to it as sent, so
        // it is refused, and recorded, there; any other bad input is refused here, sending nothing.
        if (!operation.recordRefusal || !bearer || typeof input !== 'object' || input === null) throw error;
        const route = routeOf(operation, input);
        if (!route) throw error;
        return send(route, bearer, input);
      }
      const route = routeOf(operation, valid);
      if (!route) {
        throw new ServiceError(
          'forbidden',
          `${operation.name} runs only on the machine that holds the store`,
        );
      }
      return send(route, bearer, valid);
    },
  };
  /** One request to the operation's route; a refusal comes back as the service's own error. */
  async function send(route: Route, bearer: string | undefined, input: unknown): Promise<never> {
    const { params, query, body } = requestOf(route, input);
    const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) =>
      encodeURIComponent(String(params[name] ?? '')),
    );
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]) => [k, String(v)] as [string, string]),
    );
    const headers: Record<string, string> = { accept: 'application/json' };
    if (bearer) headers.authorization = bearer;
    if (body !== undefined) headers['content-type'] = 'application/json';
    // undici loads only when a remote service is called: `svc mcp` on the local store starts without it.
    const { request } = await import('undici');
    const response = await request(`${base}${path}${search.size ? `?${search}` : ''}`, {
      method: route.method.toUpperCase() as 'GET' | 'POST' | 'PATCH' | 'DELETE',
      headers,
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.body.text();
    let answer: unknown;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      throw new ServiceError('internal', `the service at ${base} answered something that is not JSON`);
    }
    if (response.statusCode >= 400)
      throw errorFromBody(response.statusCode, answer as Record<string, unknown>);
    return answer as never;
  }
}
