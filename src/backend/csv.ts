// CSV (RFC 4180) to row objects for `svc table load` and the rows endpoint; numbers stay numbers.
import { parse } from 'csv-parse/sync';
import { ServiceError } from './errors.ts';

export function parseCsv(text: string): Record<string, string | number | boolean | null>[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, { columns: true, bom: true, skip_empty_lines: true, trim: false }) as Record<
      string,
      string
    >[];
  } catch (error) {
    throw new ServiceError('invalid_request', `CSV could not be read: ${(error as Error).message}`);
  }
  return records.map((record) =>
    Object.fromEntries(Object.entries(record).map(([k, v]) => [k.trim(), typed(v)])),
  );
}

function typed(field: string): string | number | boolean | null {
  if (field === '') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(field) && Number.isFinite(Number(field))) return Number(field);
  if (field === 'true' || field === 'false') return field === 'true';
  return field;
}
