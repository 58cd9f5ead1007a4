// Benchmark `scan-throughput`: megabytes per second of svc's folder scan (scanFolder, on both
// cores, every rule) and of secretlint (recommended preset, one file at a time, as its CLI runs)
// over the same real files: a fixed list of this project's installed packages, text files only,
// more than 200 MB. The files are read once before either runs, so both find them in the page
// cache. Target: svc at least ten times secretlint's rate.
import { closeSync, existsSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { filesToScan } from '../src/backend/scan-files.ts';
import { SCANNER_RULES, scanFolder } from '../src/backend/scan-folder.ts';
import { REPO_ROOT, atLeast, progress, type Benchmark } from './lib.ts';
import { secretlint } from './secretlint.ts';

/**
 * The packages scanned, under node_modules: the largest text this project installs (bundled
 * JavaScript, type declarations, sources, maps, JSON), about 200 MB together. Their binaries (the
 * Node executable, native modules) are skipped by both, as svc skips every file with a NUL byte.
 */
export const THROUGHPUT_PACKAGES = [
  '@google/gemini-cli',
  'node',
  'typescript',
  '@redocly/cli',
  'playwright-core',
  'prettier',
  'libphonenumber-js',
  // Since a reinstall, `node` holds its executable alone (2,820 text files, 62 MB, are gone): the
  // Model Context Protocol packages (the SDK, the inspector's bundled client, the servers) bring
  // the text back over 200 MB.
  '@modelcontextprotocol',
] as const;

const MIN_BYTES = 200 * 1000 * 1000;

/** The text files svc scans in `root` (its walk, without binaries), with their sizes. */
async function textFiles(root: string): Promise<{ path: string; file: string; bytes: number }[]> {
  const files: { path: string; file: string; bytes: number }[] = [];
  const probe = Buffer.alloc(8 * 1024);
  for await (const f of filesToScan(root)) {
    const fd = openSync(f.path, 'r');
    try {
      const read = readSync(fd, probe, 0, probe.length, 0);
      if (!probe.subarray(0, read).includes(0)) files.push(f);
    } finally {
      closeSync(fd);
    }
  }
  return files;
}

export const scanThroughput: Benchmark = {
  name: 'scan-throughput',
  description: `svc's folder scan (both cores) against secretlint's recommended preset on the same ${THROUGHPUT_PACKAGES.length} installed packages (over 200 MB of text)`,
  async run() {
    const roots = THROUGHPUT_PACKAGES.map((p) => join(REPO_ROOT, 'node_modules', p));
    const absent = roots.filter((r) => !existsSync(r));
    if (absent.length) throw new Error(`not installed: ${absent.join(', ')} (run npm install)`);

    // The file set, and one read of every file so that neither tool pays for the disk.
    const files = (await Promise.all(roots.map(textFiles))).flat();
    const total = files.reduce((sum, f) => sum + f.bytes, 0);
    for (const f of files) readFileSync(f.path);
    progress(`${files.length} text files, ${(total / 1e6).toFixed(1)} MB`);

    let svcBytes = 0;
    let svcFindings = 0;
    const svcStart = performance.now();
    for (const root of roots) {
      const scan = await scanFolder(root, { rules: SCANNER_RULES, key: new Uint8Array(32) });
      svcBytes += scan.bytes_scanned;
      svcFindings += scan.findings.length;
    }
    const svcSeconds = (performance.now() - svcStart) / 1000;
    progress(`svc: ${(svcBytes / 1e6).toFixed(1)} MB in ${svcSeconds.toFixed(1)} s`);

    let slBytes = 0;
    let slFindings = 0;
    const slStart = performance.now();
    for (const f of files) {
      const content = readFileSync(f.path);
      slBytes += content.length;
      slFindings += (await secretlint(f.path, content.toString('utf8'))).length;
    }
    const slSeconds = (performance.now() - slStart) / 1000;
    progress(`secretlint: ${(slBytes / 1e6).toFixed(1)} MB in ${slSeconds.toFixed(1)} s`);

    const svcRate = svcBytes / 1e6 / svcSeconds;
    const slRate = slBytes / 1e6 / slSeconds;
    return {
      metrics: [
        { key: 'bytes_mb', label: 'text scanned by each', value: svcBytes / 1e6, unit: 'MB' },
        { key: 'svc_mb_per_sec', label: 'svc scanFolder, 2 threads', value: svcRate, unit: 'MB/s' },
        {
          key: 'secretlint_mb_per_sec',
          label: 'secretlint, recommended preset',
          value: slRate,
          unit: 'MB/s',
        },
        { key: 'svc_findings', label: 'svc findings', value: svcFindings, unit: '' },
        { key: 'secretlint_findings', label: 'secretlint findings', value: slFindings, unit: '' },
      ],
      checks: [
        atLeast('bytes_floor', 'MB of text scanned', svcBytes / 1e6, MIN_BYTES / 1e6),
        atLeast('same_bytes', 'secretlint bytes / svc bytes', slBytes / svcBytes, 1),
        atLeast('ratio', 'svc MB/s over secretlint MB/s', svcRate / slRate, 10),
      ],
      notes: [
        `packages under node_modules: ${THROUGHPUT_PACKAGES.join(', ')}; ${files.length} text files (binaries skipped by both)`,
        'svc: scanFolder per package, every rule (secrets and personal data), worker threads on both cores, fingerprints included',
        'secretlint: @secretlint/core lintSource with the recommended preset, file by file in this process (its CLI runs one file at a time on one core)',
      ],
    };
  },
};
