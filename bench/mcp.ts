// MCP benchmarks over stdio with the SDK's own client: process start to the tools/list answer,
// side by side with @modelcontextprotocol/server-filesystem started the same way (a child Node
// process on stdio) in the same run, svc from its fast-start bundle (built first, as a user's first
// `svc mcp` has it built); and the svc_decide round trip, p50 and p99.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { atMost, median, progress, REPO_ROOT, withTempDir, type Benchmark, type BenchReport } from './lib.ts';
import { createFixture } from './fixture.ts';

const STARTS = 10;
const DECIDE_CALLS = 2000;
const FILESYSTEM_SERVER = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-filesystem/dist/index.js',
);
const SVC = join(REPO_ROOT, 'bin/svc.js');

interface Launch {
  args: string[];
  env: Record<string, string>;
}

/** Milliseconds from spawning the server to holding its tools/list answer. */
async function startToToolsList(launch: Launch): Promise<number> {
  const started = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: launch.args,
    env: { PATH: process.env.PATH ?? '', ...launch.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'svc-bench', version: '1' });
  try {
    await client.connect(transport);
    const { tools } = await client.listTools();
    if (!tools.length) throw new Error('the server listed no tools');
    return performance.now() - started;
  } finally {
    await client.close();
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export const mcpStdio: Benchmark = {
  name: 'mcp-stdio',
  description: 'svc mcp: start to tools/list vs server-filesystem; svc_decide round trip p50/p99',
  run: () =>
    withTempDir('mcp', async (dir): Promise<BenchReport> => {
      const fixture = await createFixture(dir);
      const grantToken = fixture.grantToken;
      fixture.service.close();
      const svc: Launch = { args: [SVC, 'mcp'], env: { SVC_HOME: dir, SVC_AGENT_TOKEN: grantToken } };
      const filesystem: Launch = { args: [FILESYSTEM_SERVER, dir], env: {} };
      // `svc mcp` starts from its bundle, as it does for a user once its first start had one built.
      execFileSync(process.execPath, [SVC, 'mcp', '--bundle', '--quiet'], {
        env: { PATH: process.env.PATH ?? '', ...svc.env },
        stdio: 'inherit',
      });

      // Alternate the two servers so drift on a shared machine hits both alike.
      const svcStarts: number[] = [];
      const fsStarts: number[] = [];
      for (let i = 0; i < STARTS; i++) {
        svcStarts.push(await startToToolsList(svc));
        fsStarts.push(await startToToolsList(filesystem));
      }
      progress(
        `start to tools/list: svc ${median(svcStarts).toFixed(0)} ms, filesystem ${median(fsStarts).toFixed(0)} ms`,
      );

      const transport = new StdioClientTransport({
        command: process.execPath,
        args: svc.args,
        env: { PATH: process.env.PATH ?? '', ...svc.env },
        stderr: 'ignore',
      });
      const client = new Client({ name: 'svc-bench', version: '1' });
      await client.connect(transport);
      const rounds: number[] = [];
      try {
        await client.listTools();
        for (let i = 0; i < DECIDE_CALLS + 100; i++) {
          const t = performance.now();
          const result = await client.callTool({
            name: 'svc_decide',
            arguments: { columns: ['id', 'email'] },
          });
          if (result.isError) throw new Error('svc_decide answered an error');
          if (i >= 100) rounds.push(performance.now() - t); // the first 100 warm up
        }
      } finally {
        await client.close();
      }
      rounds.sort((a, b) => a - b);
      const svcMedian = median(svcStarts);
      const fsMedian = median(fsStarts);
      const p50 = percentile(rounds, 50);
      return {
        metrics: [
          {
            key: 'svc_start_ms',
            label: 'svc mcp: start to tools/list (median)',
            value: svcMedian,
            unit: 'ms',
          },
          {
            key: 'filesystem_start_ms',
            label: 'server-filesystem: start to tools/list (median)',
            value: fsMedian,
            unit: 'ms',
          },
          { key: 'decide_p50_ms', label: 'svc_decide round trip p50', value: p50, unit: 'ms' },
          {
            key: 'decide_p99_ms',
            label: 'svc_decide round trip p99',
            value: percentile(rounds, 99),
            unit: 'ms',
          },
        ],
        checks: [
          atMost('start_ratio', 'svc / filesystem start', svcMedian / fsMedian, 1.0),
          atMost('decide_p50', 'svc_decide p50 (ms)', p50, 1),
        ],
        notes: [
          `${STARTS} alternating starts each; ${DECIDE_CALLS} svc_decide calls after 100 warm-up calls, each a signed receipt`,
        ],
      };
    }),
};
