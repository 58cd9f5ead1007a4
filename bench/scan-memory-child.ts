// The child process of benchmark `scan-memory`: scans the one file it is given as `svc scan` does
// (every rule, chunked reading) and prints its peak resident memory, so the parent compares peaks
// of files of different sizes, each in a process of its own.
import { createHmac } from 'node:crypto';
import { scanFile } from '../src/backend/scan-files.ts';
import { detector } from '../src/scan/detect.ts';
import { DETECTION_RULES, TABLE_READERS } from '../src/scan/rules.ts';

const path = process.argv[2]!;
const find = detector(DETECTION_RULES, TABLE_READERS);
const fingerprint = (type: string, value: string) =>
  createHmac('sha256', 'bench').update(`${type}\u0000${value}`).digest('hex').slice(0, 32);
const start = performance.now();
const outcome = scanFile({ path, file: 'app.log' }, find, fingerprint);
const seconds = (performance.now() - start) / 1000;
if ('skipped' in outcome) throw new Error(`skipped: ${outcome.skipped}`);
process.stdout.write(
  `${JSON.stringify({
    // resourceUsage().maxRSS is in kibibytes.
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    bytes: outcome.bytes,
    findings: outcome.findings.length,
    seconds,
  })}\n`,
);
