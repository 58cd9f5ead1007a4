// The operation registry: every operation of the service, once. Routes, tools, CLI commands, the
// remote backend, the auth matrix and the contract suite are derived from this list.
import type { Operation } from '../operation.ts';
import * as governance from './governance.ts';
import * as fabric from './fabric.ts';
import * as documents from './documents.ts';
import * as setup from './setup.ts';
import * as sources from './sources.ts';
import * as proofs from './proofs.ts';
import * as owner from './owner.ts';
import * as rules from './rules.ts';
import * as patches from './patches.ts';
import * as scans from './scans.ts';
import * as links from './links.ts';
import * as exposures from './exposures.ts';

/** The operations among a domain file's exports: the file exports its schemas beside them. */
type OperationsOf<M> = { [K in keyof M as M[K] extends Operation ? K : never]: M[K] };

function isOperation(value: unknown): value is Operation {
  return typeof value === 'object' && value !== null && 'caller' in value && 'run' in value;
}

function operationsOf<M extends object>(domain: M): OperationsOf<M> {
  return Object.fromEntries(
    Object.entries(domain).filter(([, value]) => isOperation(value)),
  ) as OperationsOf<M>;
}

/** Every operation by name, typed: `ops.createGrant`. */
export const ops = {
  ...operationsOf(governance),
  ...operationsOf(fabric),
  ...operationsOf(documents),
  ...operationsOf(setup),
  ...operationsOf(sources),
  ...operationsOf(proofs),
  ...operationsOf(rules),
  ...operationsOf(patches),
  ...operationsOf(scans),
  ...operationsOf(links),
  ...operationsOf(exposures),
  ...operationsOf(owner),
};

export const OPERATIONS: readonly Operation[] = Object.values(ops) as Operation[];
