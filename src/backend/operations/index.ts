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

/** Every operation by name, typed: `ops.createGrant`. */
export const ops = { ...governance, ...fabric, ...documents, ...setup, ...sources, ...proofs, ...owner };

export const OPERATIONS: readonly Operation[] = Object.values(ops) as Operation[];

export function operationNamed(name: string): Operation | undefined {
  return OPERATIONS.find((op) => op.name === name);
}
