// Calling an operation: in this process over the local store, or on a remote `svc serve` through
// the operation's route. Both answer the same results and throw the same ServiceError.
import type { Context } from './context.ts';
import { authenticate, type Principal } from './credentials.ts';
import { ServiceError, errorFromBody, invalidInput } from './errors.ts';
import { callerFor, takesCredential, type Operation } from './operation.ts';
import { requestOf, routeOf } from './routes.ts';

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
  const caller = await callerFor(ctx, operation.caller, principal);
  return await operation.run(ctx, caller as never, input);
}

/** Parses an input against the operation's schema; a bad input is invalid_request. */
export function parseInput<I>(operation: Operation<I>, input: unknown): I {
  const parsed = operation.input.safeParse(input);
  if (!parsed.success) throw invalidInput(parsed.error);
  return parsed.data;
}

/** The core in this process. */
export function localInvoker(ctx: Context, location: Extract<ServiceLocation, { kind: 'local' }>): Invoker {
  return {
    location,
    async invoke(operation, bearer, input) {
      const principal = takesCredential(operation.caller) ? await authenticate(ctx, bearer) : undefined;
      return (await runAs(ctx, operation, principal, parseInput(operation, input))) as never;
    },
  };
}

/** A remote `svc serve`: each operation through its route, over undici. */
export function remoteInvoker(baseUrl: string): Invoker {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    location: { kind: 'remote', base_url: base },
    async invoke(operation, bearer, input) {
      const valid = parseInput(operation, input);
      const route = routeOf(operation, valid);
      if (!route) {
        throw new ServiceError(
          'forbidden',
          `${operation.name} runs only on the machine that holds the store`,
        );
      }
      const { params, query, body } = requestOf(route, valid);
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
        method: route.method.toUpperCase() as 'GET' | 'POST' | 'PATCH',
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
    },
  };
}
