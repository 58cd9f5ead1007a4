// Benchmark entry point: `node bench/run.ts [name ...]` runs every benchmark in turn (or only the
// named ones), prints a table and writes the figures to bench/results.json. Benchmarks run one
// after another, never together, so they do not compete for the machine's cores, and each in a
// process of its own, so that what one leaves behind does not weigh on the next: run after the
// others in one process, the seal benchmark's format ran at half its own speed (0.49 and 0.46 of
// raw AES-GCM, where it gave 0.81 to 0.99 alone), in a heap the earlier ones had grown.
import { fork } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { formatNumber, type Benchmark, type BenchReport } from './lib.ts';
import { computeInprocess } from './compute-inprocess.ts';
import { httpCompute } from './http-compute.ts';
import { readAudit } from './read-audit.ts';
import { chainVerify } from './chain-verify.ts';
import { mcpStdio } from './mcp.ts';
import { serveUnderLoad } from './serve-under-load.ts';
import { sourceMask } from './source-mask.ts';
import { gateRules } from './gate-rules.ts';
import { hookLatency } from './hook-latency.ts';
import { scanAccuracy } from './scan-accuracy.ts';
import { scanMemory } from './scan-memory.ts';
import { scanThroughput } from './scan-throughput.ts';
import { seal } from './seal.ts';
import { runOverhead } from './run-overhead.ts';
import { linkOpens, sharePage } from './share.ts';

const BENCHMARKS: Benchmark[] = [
  computeInprocess,
  httpCompute,
  serveUnderLoad,
  readAudit,
  chainVerify,
  mcpStdio,
  sourceMask,
  gateRules,
  hookLatency,
  scanThroughput,
  scanAccuracy,
  scanMemory,
  seal,
  runOverhead,
  sharePage,
  linkOpens,
];
const RESULTS_FILE = new URL('./results.json', import.meta.url);

// Every store a benchmark opens keeps its keys in files, in this process and in the children it
// starts: a benchmark never writes to the login keychain, and a child never finds other keys than
// its parent (on a computer with a keychain, the seal benchmark's parent chose the keychain while
// its child, told to use files, refused the store as written with other keys).
process.env.SVC_VAULT = 'file';

interface Outcome extends Partial<BenchReport> {
  name: string;
  seconds: number;
  measured_at: string;
  /** 1-minute load average when the benchmark started: the machine is shared, so this is context. */
  load_before: number;
  error?: string;
}

interface ResultsFile {
  generated_at: string;
  environment: { node: string; platform: string; arch: string; cpus: number; cpu_model: string };
  benchmarks: Record<string, Outcome>;
}

// Ctrl-C: exit through process.exit so lib.ts's exit hook kills child servers and removes temp dirs.
process.once('SIGINT', () => process.exit(130));
process.once('SIGTERM', () => process.exit(143));

function selected(args: string[]): Benchmark[] {
  if (args.includes('--help') || args.includes('-h')) {
    console.log('usage: node bench/run.ts [name ...]\n');
    for (const b of BENCHMARKS) console.log(`  ${b.name.padEnd(20)} ${b.description}`);
    process.exit(0);
  }
  const unknown = args.filter((name) => !BENCHMARKS.some((b) => b.name === name));
  if (unknown.length) {
    console.error(
      `unknown benchmark: ${unknown.join(', ')}; known: ${BENCHMARKS.map((b) => b.name).join(', ')}`,
    );
    process.exit(2);
  }
  return args.length ? BENCHMARKS.filter((b) => args.includes(b.name)) : BENCHMARKS;
}

async function runOne(bench: Benchmark): Promise<Outcome> {
  console.log(`\n== ${bench.name}: ${bench.description}`);
  const start = performance.now();
  const measuredAt = new Date().toISOString();
  const loadBefore = Math.round(loadavg()[0]! * 100) / 100;
  try {
    const report = await bench.run();
    const seconds = (performance.now() - start) / 1000;
    console.log(`   done in ${seconds.toFixed(1)} s`);
    return { name: bench.name, seconds, measured_at: measuredAt, load_before: loadBefore, ...report };
  } catch (error) {
    const seconds = (performance.now() - start) / 1000;
    console.error(`   FAILED after ${seconds.toFixed(1)} s:`, error);
    return {
      name: bench.name,
      seconds,
      measured_at: measuredAt,
      load_before: loadBefore,
      error: String((error as Error)?.stack ?? error),
    };
  }
}

function printTable(outcomes: Outcome[]): void {
  const rows: string[][] = [['benchmark', 'measure', 'value', 'unit']];
  for (const o of outcomes) {
    if (o.error) rows.push([o.name, 'ERROR (see above)', '', '']);
    for (const m of o.metrics ?? []) rows.push([o.name, m.label, formatNumber(m.value), m.unit]);
    for (const c of o.checks ?? []) {
      rows.push([
        o.name,
        `${c.label} (target ${c.op} ${c.target})`,
        formatNumber(c.value),
        c.pass ? 'met' : 'MISSED',
      ]);
    }
    rows.push([o.name, 'wall time', o.seconds.toFixed(1), 's']);
  }
  const widths = rows[0]!.map((_, col) => Math.max(...rows.map((r) => r[col]!.length)));
  const line = (r: string[]) =>
    r.map((cell, col) => (col === 2 ? cell.padStart(widths[col]!) : cell.padEnd(widths[col]!))).join('  ');
  console.log(`\n${line(rows[0]!)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  let previous = '';
  for (const r of rows.slice(1)) {
    // Name each benchmark once, on its first row.
    console.log(line([r[0] === previous ? '' : r[0]!, ...r.slice(1)]));
    previous = r[0]!;
  }
  for (const o of outcomes) for (const note of o.notes ?? []) console.log(`note (${o.name}): ${note}`);
}

/**
 * Merges into the existing file, so running one benchmark keeps the others' last figures. Written
 * through prettier with the repository's settings, so the committed file passes `prettier --check`.
 */
async function writeResults(outcomes: Outcome[]): Promise<void> {
  let previous: Record<string, Outcome> = {};
  try {
    previous = (JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultsFile).benchmarks ?? {};
  } catch {
    // No earlier results (or unreadable ones): start afresh.
  }
  const results: ResultsFile = {
    generated_at: new Date().toISOString(),
    environment: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpus().length,
      cpu_model: cpus()[0]?.model ?? 'unknown',
    },
    benchmarks: { ...previous, ...Object.fromEntries(outcomes.map((o) => [o.name, o])) },
  };
  const path = fileURLToPath(RESULTS_FILE);
  const options = (await prettier.resolveConfig(path)) ?? {};
  writeFileSync(RESULTS_FILE, await prettier.format(JSON.stringify(results), { ...options, filepath: path }));
  console.log(`\nwrote ${path}`);
}

/** The argument that makes this file run one benchmark and send its outcome to its parent. */
const CHILD = '--run-one';

/** Runs one benchmark in a new process of this file; its output goes where this process's goes. */
function runIsolated(bench: Benchmark): Promise<Outcome> {
  return new Promise((resolve) => {
    const child = fork(fileURLToPath(import.meta.url), [CHILD, bench.name], { stdio: 'inherit' });
    let outcome: Outcome | undefined;
    child.once('message', (message) => (outcome = message as Outcome));
    child.once('exit', (code, signal) => {
      resolve(
        outcome ?? {
          name: bench.name,
          seconds: 0,
          measured_at: new Date().toISOString(),
          load_before: 0,
          error: `its process ended (${signal ?? `exit code ${code}`}) before it reported`,
        },
      );
    });
  });
}

if (process.argv[2] === CHILD) {
  const outcome = await runOne(selected([process.argv[3]!])[0]!);
  // Exits through process.exit once sent, so lib.ts's exit hook cleans up as after any run.
  process.send!(outcome, () => process.exit(0));
} else {
  const outcomes: Outcome[] = [];
  for (const bench of selected(process.argv.slice(2))) outcomes.push(await runIsolated(bench));
  printTable(outcomes);
  await writeResults(outcomes);
  // A benchmark that threw is a failure; a missed target is reported above but does not fail the run.
  if (outcomes.some((o) => o.error)) process.exitCode = 1;
}
