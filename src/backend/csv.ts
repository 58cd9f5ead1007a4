// CSV (RFC 4180) to row objects for `svc table load` and the rows endpoint; numbers stay numbers
// where a number holds them exactly.
import { parse } from 'csv-parse/sync';
import { ServiceError } from './errors.ts';

export function parseCsv(text: string): Record<string, string | number | boolean | null>[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      columns: headerOf,
      bom: true,
      skip_empty_lines: true,
      trim: false,
    }) as Record<string, string>[];
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw new ServiceError('invalid_request', `CSV could not be read: ${(error as Error).message}`);
  }
  // As a JSON load needs one row at least, so does a CSV one: a header alone loads nothing.
  if (records.length === 0) {
    throw new ServiceError(
      'invalid_request',
      'the CSV holds a header and no rows: a load needs at least one row under the header',
      { field: 'csv' },
    );
  }
  return records.map((record) => Object.fromEntries(Object.entries(record).map(([k, v]) => [k, typed(v)])));
}

/**
 * The column names, trimmed. Two columns of one name (as written, or once trimmed) would leave one
 * value of each row unseen, the later overwriting the earlier: refused, naming them.
 */
function headerOf(header: string[]): string[] {
  const names = header.map((name) => name.trim());
  const repeated = [...new Set(names.filter((name, i) => names.indexOf(name) !== i))];
  if (repeated.length) {
    throw new ServiceError(
      'invalid_request',
      `the CSV header names ${repeated.map((n) => `\`${n}\``).join(', ')} more than once (white space around a name is not part of it): give each column one name`,
      { field: 'csv', duplicate_columns: repeated },
    );
  }
  return names;
}

function typed(field: string): string | number | boolean | null {
  if (field === '') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(field) && Number.isFinite(Number(field))) {
    // A whole number past 2^53 has no exact double: it stays the digits it was written as.
    const whole = !field.includes('.');
    return whole && !Number.isSafeInteger(Number(field)) ? field : Number(field);
  }
  if (field === 'true' || field === 'false') return field === 'true';
  return field;
}
