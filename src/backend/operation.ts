// An operation of the service as data: who may call it, its input and output schemas, and what it
// runs. Routes, MCP tools, CLI commands, the remote backend and the tests all derive from these.
import type { z } from 'zod';
import type { Context } from './context.ts';
import type { ServiceError } from './errors.ts';
import {
  authenticate,
  requireAgent,
  requireOrgKey,
  type AgentPrincipal,
  type OrgCaller,
  type Principal,
  type Scope,
} from './credentials.ts';

/**
 * Who may call an operation. `org`: an organization key bound to an organization, with the scope;
 * `agent`: an agent grant token; `any`: either (the answer is about the caller); `none`: no
 * credential; `local`: this machine's owner, in process only (never routed over HTTP).
 */
export type CallerSpec =
  | { kind: 'org'; scope: Exclude<Scope, '*'> }
  | { kind: 'agent' }
  | { kind: 'any' }
  | { kind: 'none' }
  | { kind: 'local' };

export type CallerOf<C extends CallerSpec> = C extends { kind: 'org' }
  ? OrgCaller
  : C extends { kind: 'agent' }
    ? AgentPrincipal
    : C extends { kind: 'any' }
      ? Principal
      : null;

export interface Operation<I = unknown, R = unknown> {
  /** camelCase; also the HTTP operationId. */
  name: string;
  summary: string;
  caller: CallerSpec;
  /** What the core needs, parsed before `run` by every adapter. */
  input: z.ZodType<I>;
  /** What `run` answers: the HTTP response schema and the basis of the tools' output schemas. */
  output: z.ZodType;
  run(ctx: Context, caller: never, input: I): R | Promise<R>;
  /**
   * Records a refusal of an authenticated caller where this operation keeps its record, instead of
   * the invoker's `operation.refused` receipt (invoke.ts): reads of table rows on the audit chain.
   * Called with the input as sent (it may be invalid) once a refusal has no record yet; answers the
   * details the refused answer then carries (`{audit}`), or undefined to leave it to the invoker.
   */
  recordRefusal?(
    ctx: Context,
    principal: Principal,
    input: unknown,
    error: ServiceError,
  ): Promise<Record<string, unknown> | undefined>;
}

export type InputOf<Op> = Op extends Operation<infer I, unknown> ? I : never;
export type ResultOf<Op> = Op extends Operation<unknown, infer R> ? Awaited<R> : never;

/** Types one declaration: `run` sees its caller and input as the caller spec and schema give them. */
export function defineOperation<C extends CallerSpec, I extends z.ZodType, R>(op: {
  name: string;
  summary: string;
  caller: C;
  input: I;
  output: z.ZodType;
  run(ctx: Context, caller: CallerOf<C>, input: z.output<I>): R | Promise<R>;
  recordRefusal?: Operation['recordRefusal'];
}): Operation<z.output<I>, R> {
  return op as unknown as Operation<z.output<I>, R>;
}

/**
 * The caller an operation runs as: 401 for a bearer that proves nothing, 403 for a valid
 * credential of the wrong kind, organization or scope.
 */
export async function callerFor(
  ctx: Context,
  spec: CallerSpec,
  principal: Principal | undefined,
): Promise<unknown> {
  switch (spec.kind) {
    case 'none':
    case 'local':
      return null;
    case 'any':
      return principal ?? (await authenticate(ctx, undefined));
    case 'org':
      return requireOrgKey(principal ?? (await authenticate(ctx, undefined)), spec.scope);
    case 'agent':
      return requireAgent(principal ?? (await authenticate(ctx, undefined)));
  }
}

/** Whether an operation needs a bearer at all. */
export function takesCredential(spec: CallerSpec): boolean {
  return spec.kind === 'org' || spec.kind === 'agent' || spec.kind === 'any';
}

/**
 * A domain module loaded on its first use: declaring operations (every process that routes or
 * lists them) loads their schemas only, and an operation's code loads when it is first called.
 */
export function lazily<M>(load: () => Promise<M>): () => Promise<M> {
  let loading: Promise<M> | undefined;
  return () => (loading ??= load());
}
