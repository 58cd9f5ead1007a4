// Benchmark `scan-memory`: peak memory of scanning one file, for a 64 MiB and a 1 GiB file of
// application log lines (generated into a temp folder, removed afterwards), each in a child process
// of its own (bench/scan-memory-child.ts) so that the peaks do not mix. svc reads a large file in
// chunks, so the peak must not grow with the file: target, the 1 GiB peak at most 1.25 times the
// 64 MiB one. The findings found in the findings list do grow with the file: the log holds few.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, statfsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, atMost, progress, withTempDir, type Benchmark } from './lib.ts';

const SMALL = 64 * 1024 * 1024;
const LARGE = 1024 * 1024 * 1024;

/** A 1 MiB block of log lines; one line in the block holds an email and a public address. */
function block(): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < 1024 * 1024; i++) {
    const line =
      i === 100
        ? '2026-03-14T10:22:31.482Z INFO  [auth] login succeeded user=amara.okafor@fastmail.fm ip=81.2.69.142\n'
        : `2026-03-14T10:22:${String(i % 60).padStart(2, '0')}.${String(i % 1000).padStart(3, '0')}Z INFO  [http] GET /api/v1/orders?page=${i % 40} 200 ${i % 90}ms trace=${(i * 2654435761).toString(16).padStart(8, '0')}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join('')).subarray(0, 1024 * 1024);
}

function writeLog(path: string, bytes: number): void {
  const chunk = block();
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

interface ChildReport {
  maxRssBytes: number;
  bytes: number;
  findings: number;
  seconds: number;
}

function scanInChild(path: string): ChildReport {
  const out = execFileSync(process.execPath, [join(REPO_ROOT, 'bench/scan-memory-child.ts'), path], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 30 * 60 * 1000,
  });
  return JSON.parse(out.trim().split('\n').at(-1)!) as ChildReport;
}

export const scanMemory: Benchmark = {
  name: 'scan-memory',
  description:
    'peak memory of scanning one 64 MiB and one 1 GiB file, each in a child process: constant in the size',
  async run() {
    return withTempDir('scan-memory', (dir) => {
      const { bavail, bsize } = statfsSync(dir);
      if (bavail * bsize < LARGE * 1.5) throw new Error(`needs 1.5 GiB free in ${dir}`);
      const small = join(dir, 'small.log');
      const large = join(dir, 'large.log');
      writeLog(small, SMALL);
      writeLog(large, LARGE);
      progress('files written; scanning 64 MiB');
      const s = scanInChild(small);
      progress(
        `64 MiB: peak ${(s.maxRssBytes / 2 ** 20).toFixed(0)} MiB in ${s.seconds.toFixed(1)} s; scanning 1 GiB`,
      );
      const l = scanInChild(large);
      progress(`1 GiB: peak ${(l.maxRssBytes / 2 ** 20).toFixed(0)} MiB in ${l.seconds.toFixed(1)} s`);
      const mib = (b: number) => b / 2 ** 20;
      return {
        metrics: [
          {
            key: 'small_peak_mib',
            label: 'peak RSS scanning 64 MiB',
            value: mib(s.maxRssBytes),
            unit: 'MiB',
          },
          { key: 'large_peak_mib', label: 'peak RSS scanning 1 GiB', value: mib(l.maxRssBytes), unit: 'MiB' },
          {
            key: 'large_mb_per_sec',
            label: 'one thread, 1 GiB of logs',
            value: l.bytes / 1e6 / l.seconds,
            unit: 'MB/s',
          },
          { key: 'large_findings', label: 'findings in 1 GiB', value: l.findings, unit: '' },
        ],
        checks: [atMost('peak_ratio', 'peak RSS, 1 GiB over 64 MiB', l.maxRssBytes / s.maxRssBytes, 1.25)],
        notes: [
          'each file scanned by scanFile (the chunked reader svc scan uses) with every rule, in a child process of its own; peak from process.resourceUsage().maxRSS',
          'the log repeats one 1 MiB block of lines; one line per block holds an email and a public address, so findings grow with the file',
        ],
      };
    });
  },
};
