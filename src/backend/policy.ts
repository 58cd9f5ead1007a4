// The grant policy, pure: what a grant releases of a table for one request, column by column and
// filter by filter, with a typed reason for everything it holds back. Planning (compute), reading
// and retrieving all decide with this one function; the read gate will too. No store, no clock.
import type { GrantScope, WhereValue } from './credentials.ts';
import type { TableInfo } from './tables.ts';

/** Classifications an external destination may never receive. */
const SENSITIVE_CLASSES = new Set(['pii', 'financial', 'confidential', 'secret']);

export type Action = 'classify' | 'read' | 'send';

/** Why a column or a filter is held back: a closed set, so adapters never parse text. */
export const REASON_CODES = [
  'table_not_granted',
  'no_columns_requested',
  'unknown_column',
  'not_granted',
  'classification_not_granted',
  'external_destination',
  'where_not_plaintext',
  'where_not_granted',
  'where_outside_grant',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

export interface Reason {
  code: ReasonCode;
  /** The column (or filter key) it is about; absent for reasons about the whole request. */
  column?: string;
}

/** The wire form of a reason, as the API has always answered it: `code` or `code:column`. */
export function reasonText(reason: Reason): string {
  return reason.column === undefined ? reason.code : `${reason.code}:${reason.column}`;
}

export interface PolicyRequest {
  action: Action;
  /** Requested columns; without them, the grant's columns (on the grant's table). */
  columns?: string[] | undefined;
  where?: Record<string, WhereValue> | undefined;
  destination?: { external?: boolean | undefined } | undefined;
}

export interface GrantEvaluation {
  action: Action;
  table: string;
  /** Whether the grant is on this table at all; when not, nothing of it is released. */
  tableGranted: boolean;
  /** The requested columns, deduplicated, in request order. */
  requested: string[];
  allowed: string[];
  withheld: { column: string; reason: Reason }[];
  /** Filters the grant does not allow, each with one reason (plaintext first, then reach, then value). */
  filters: { column: string; reason: Reason }[];
  /** For classify: each released column's classification (never a value). */
  classifications?: Record<string, string>;
}

/** Evaluates one request against one grant on one table. */
export function evaluateGrant(table: TableInfo, grant: GrantScope, request: PolicyRequest): GrantEvaluation {
  const byName = new Map(table.columns.map((c) => [c.name, c]));
  const requested = [...new Set(request.columns ?? (table.name === grant.table ? grant.columns : []))];
  const base = { action: request.action, table: table.name, requested };
  if (table.name !== grant.table) {
    return { ...base, tableGranted: false, allowed: [], withheld: [], filters: [] };
  }
  const filters: GrantEvaluation['filters'] = [];
  for (const [key, value] of Object.entries(request.where ?? {})) {
    const held = (code: ReasonCode) => filters.push({ column: key, reason: { code, column: key } });
    if (byName.get(key)?.storage !== 'plaintext') held('where_not_plaintext');
    // Filtering on a column the grant does not release would let an agent probe its values.
    else if (!grant.columns.includes(key) && !(key in grant.where)) held('where_not_granted');
    else if (key in grant.where && grant.where[key] !== value) held('where_outside_grant');
  }
  const allowed: string[] = [];
  const withheld: GrantEvaluation['withheld'] = [];
  const hold = (column: string, code: ReasonCode) => withheld.push({ column, reason: { code, column } });
  if (request.action === 'classify') {
    // Classification names column classes, never values; still deny-by-default: only the grant's columns.
    const classifications: Record<string, string> = {};
    for (const name of requested) {
      const column = byName.get(name);
      if (column && grant.columns.includes(name)) {
        allowed.push(name);
        classifications[name] = column.classification;
      } else hold(name, 'not_granted');
    }
    return { ...base, tableGranted: true, allowed, withheld, filters, classifications };
  }
  for (const name of requested) {
    const column = byName.get(name);
    if (!column) hold(name, 'unknown_column');
    else if (!grant.columns.includes(name)) hold(name, 'not_granted');
    else if (grant.classifications && !grant.classifications.includes(column.classification))
      hold(name, 'classification_not_granted');
    else if (
      request.action === 'send' &&
      request.destination?.external &&
      SENSITIVE_CLASSES.has(column.classification)
    )
      hold(name, 'external_destination');
    else allowed.push(name);
  }
  return { ...base, tableGranted: true, allowed, withheld, filters };
}
