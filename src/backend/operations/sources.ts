// Source operations: external HTTP APIs whose credential the service keeps sealed, injects into
// calls and masks in every answer.
import { z } from 'zod';
import * as S from '../schemas.ts';
import { defineOperation } from '../operation.ts';
import * as sources from '../sources.ts';

export const registerSource = defineOperation({
  name: 'registerSource',
  summary: 'Register an external HTTP API; its credential is sealed and never returned',
  caller: { kind: 'org', scope: 'governance' },
  input: S.SourceRequest,
  output: S.SourceView,
  run: (ctx, caller, input) => sources.registerSource(ctx, caller, input),
});

export const listSources = defineOperation({
  name: 'listSources',
  summary: 'Registered external APIs (credentials never shown)',
  caller: { kind: 'org', scope: 'governance' },
  input: z.object({}),
  output: S.SourceList,
  run: (ctx, caller) => sources.listSources(ctx, caller),
});

export const callSource = defineOperation({
  name: 'callSource',
  summary: 'Call a registered API with its credential injected; the answer is masked and receipted',
  caller: { kind: 'org', scope: 'governance' },
  input: S.UseRequest,
  output: S.SourceCallResult,
  run: (ctx, caller, input) => sources.callSource(ctx, caller, input),
});

export const useCapability = defineOperation({
  name: 'useCapability',
  summary: 'An agent calls a source its grant allows; the service injects the credential',
  caller: { kind: 'agent' },
  input: S.UseRequest,
  output: S.SourceCallResult,
  run: (ctx, agent, input) => sources.useCapability(ctx, agent, input),
});
