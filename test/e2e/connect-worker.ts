// svc_connect end to end, run inside a dbus session with a real gnome-keyring (see connect.test.ts):
// the real `svc mcp` process, the SDK's Client answering URL elicitation by driving headless
// Chromium through the approval page. Reports what it saw as one JSON line.
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { launchChromium } from './browser.ts';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { hostname } from 'node:os';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { serve } from '../../src/entry/serve.ts';
import { KeychainVault } from '../../src/vault/keychain.ts';
import { machineFacts } from '../../src/config/machine.ts';

const dataDir = process.argv[2]!;
const BIN = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const report: Record<string, unknown> = {};

const owner = new Service({ dataDir });
const org = await owner.invoke(ops.createOrg, undefined, { name: 'Browser Org' });
owner.close();

const browser: Browser = await launchChromium();

async function visit(url: string, action: 'approve' | 'deny', key: string) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    const seen = {
      code: (await page.textContent('#user-code'))?.trim(),
      machine: (await page.textContent('#machine'))?.trim(),
    };
    if (action === 'approve') await page.fill('#api_key', key);
    await page.click(`button[value=${action}]`);
    await page.waitForSelector('#result');
    return { ...seen, result: (await page.textContent('#result'))?.trim() };
  } finally {
    await page.close();
  }
}

async function connectOnce(action: 'approve' | 'deny') {
  const client = new Client(
    { name: 'connect-e2e', version: '1' },
    { capabilities: { elicitation: { url: {} } } },
  );
  const visits: unknown[] = [];
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string; url?: string; message: string };
    if (params.mode !== 'url' || !params.url) return { action: 'decline' };
    visits.push({ message: params.message, ...(await visit(params.url, action, org.api_key)) });
    return { action: 'accept' };
  });
  const { SVC_API_KEY: _drop, ...env } = process.env;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp'],
      env: { ...env, SVC_HOME: dataDir } as Record<string, string>,
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  const result = await client.callTool({ name: 'svc_connect', arguments: { wait_seconds: 30 } });
  const policy = await client.callTool({ name: 'svc_policy', arguments: {} });
  await client.close();
  return {
    result: result.structuredContent,
    isError: result.isError ?? false,
    text: (result.content as { text?: string }[])[0]?.text,
    visits,
    policy_ok: !policy.isError,
  };
}

try {
  report.approve = await connectOnce('approve');
  const stored = new KeychainVault(dataDir).getCredential('org-key');
  report.key_in_keychain = typeof stored === 'string' && stored.startsWith('ndp_');
  report.key_files = (await import('node:fs')).existsSync(`${dataDir}/keys/org-key.cred`);
  report.deny = await connectOnce('deny');

  // Expiry: a code past its time shows as expired in the browser, and the device hears so.
  let now = Date.now();
  const clocked = new Service({ dataDir, clock: () => new Date(now) });
  const started = await clocked.invoke(ops.startConnect, undefined, machineFacts());
  const server = await serve({ service: clocked, port: 0 });
  now += 11 * 60 * 1000;
  const page = await browser.newPage();
  const response = await page.goto(server.url + started.verification_path);
  report.expired = {
    status: response?.status(),
    heading: (await page.textContent('h1'))?.trim(),
    poll: await clocked.invoke(ops.pollConnect, undefined, { device_code: started.device_code }),
  };
  await page.close();
  await server.close();
  report.hostname = hostname();
  new KeychainVault(dataDir).forget(['service-signing-ed25519', 'data-columns', 'capsules'], ['org-key']);
} finally {
  await browser.close();
}
process.stdout.write(`${JSON.stringify(report)}\n`);
