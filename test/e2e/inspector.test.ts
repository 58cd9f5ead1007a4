// The real MCP Inspector (CLI mode) against the real `svc mcp` process: it lists the tools and
// calls svc_get_started; a tool error makes it exit non-zero.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { tempDir } from '../helpers.ts';
import { TOOLS } from '../../src/tools/index.ts';

const run = promisify(execFile);
const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const INSPECTOR = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/inspector/clients/launcher/build/index.js',
);
const home = tempDir();
afterAll(home.cleanup);

// The Inspector hands its server a few basic variables and those given with -e, not the runner's
// SVC_VAULT, so that is restated here.
function inspector(...args: string[]) {
  return run(
    process.execPath,
    [
      INSPECTOR,
      '--cli',
      '-e',
      `SVC_HOME=${home.dir}`,
      '-e',
      'SVC_VAULT=file',
      process.execPath,
      BIN,
      'mcp',
      ...args,
    ],
    {
      timeout: 60_000,
      env: { ...process.env, SVC_HOME: home.dir },
    },
  );
}

it('lists every registered tool', async () => {
  const { stdout } = await inspector('--method', 'tools/list');
  const listed = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  expect(listed).toEqual(TOOLS.map((t) => t.name));
});

it('calls svc_get_started', async () => {
  const { stdout } = await inspector('--method', 'tools/call', '--tool-name', 'svc_get_started');
  const result = JSON.parse(stdout) as {
    isError?: boolean;
    structuredContent: { service: { data_dir: string } };
  };
  expect(result.isError).toBeFalsy();
  expect(result.structuredContent.service.data_dir).toBe(home.dir);
});

it('exits non-zero when the tool answers an error', async () => {
  const failure = await inspector('--method', 'tools/call', '--tool-name', 'svc_policy').catch(
    (e: unknown) => e,
  );
  expect((failure as { code?: number }).code).toBeGreaterThan(0);
  expect(String((failure as { stdout?: string }).stdout)).toContain('SVC_API_KEY');
});
