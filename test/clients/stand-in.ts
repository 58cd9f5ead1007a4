// A stand-in for an agent client's model API, and the project a real client runs in: the stand-in
// answers the first request that offers tools with one scripted tool call, every later request with
// text, and keeps every request body it received, so a test can say what reached the model.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { childEnv, REPO_ROOT, runSvc, SVC_BIN } from '../e2e/procs.ts';
import { svcCommandIn } from '../../src/config/command.ts';
import { tempDir } from '../helpers.ts';

/** The tool call the stand-in asks for: the client's tool name and its arguments. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** One model API's wire format: how to tell a request that offers tools, and how to answer. */
export interface Wire {
  /** Whether this request offers tools and carries no tool result yet (so a tool call fits). */
  wantsToolCall(body: any): boolean;
  /** Writes the answer; `call` is undefined for a text answer. */
  answer(req: IncomingMessage, res: ServerResponse, body: any, call: ToolCall | undefined): void;
}

export interface StandIn {
  url: string;
  /** Every request as `METHOD path` and its body, in arrival order. */
  requests: { route: string; body: string }[];
  /** Scripts the next run: the first request that wants a tool call gets `call`. */
  script(call: ToolCall): void;
  /** Whether the scripted call was handed out. */
  called(): boolean;
  close(): Promise<void>;
}

export const FINAL_TEXT = 'The stand-in is done.';

export function sse(res: ServerResponse, events: { event?: string; data: unknown }[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const { event, data } of events) {
    res.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  res.end();
}

export async function startStandIn(wire: Wire): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  let pending: ToolCall | undefined;
  let handedOut = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      requests.push({ route: `${req.method} ${req.url}`, body: text });
      let body: any = {};
      try {
        body = text ? JSON.parse(text) : {};
      } catch {
        // Not JSON: answered as a request without tools.
      }
      let call: ToolCall | undefined;
      if (pending && wire.wantsToolCall(body)) {
        call = pending;
        pending = undefined;
        handedOut = true;
      }
      try {
        wire.answer(req, res, body, call);
      } catch (error) {
        res.writeHead(500).end(String(error));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script(call) {
      pending = call;
      handedOut = false;
    },
    called: () => handedOut,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A temp project: `.env` and `secrets/token.txt` holding a fresh canary, rules denying both, a
 * harmless file; a fresh home.
 */
export function clientProject(prefix: string) {
  const tmp = tempDir(prefix);
  const project = join(tmp.dir, 'shop');
  const home = join(tmp.dir, 'home');
  const canary = `SVC_CANARY_${randomBytes(12).toString('hex')}`;
  const harmless = `harmless-${randomBytes(8).toString('hex')}`;
  const file = (path: string, text: string) => {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  };
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(home, { recursive: true });
  file(join(project, '.env'), `API_TOKEN=${canary}\n`);
  file(join(project, 'secrets', 'token.txt'), `${canary}\n`);
  file(join(project, 'notes.txt'), `${harmless}\n`);
  file(
    join(project, '.svc', 'rules.json'),
    JSON.stringify([{ effect: 'deny', paths: ['.env', 'secrets/'], reason: 'keys and tokens' }]),
  );
  return { dir: tmp.dir, project, home, canary, harmless, file, cleanup: tmp.cleanup };
}

/** The command that starts svc's MCP server over stdio, as a client's `mcp add` is given it. */
export const SVC_MCP = [process.execPath, join(REPO_ROOT, SVC_BIN), 'mcp'];

/** Runs the real `svc hook install` from `cwd`; throws with its output when it fails. */
export function installHook(client: string, scope: 'project' | 'user', cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(
    process.execPath,
    [join(REPO_ROOT, SVC_BIN), 'hook', 'install', '--client', client, '--scope', scope],
    { cwd, env, encoding: 'utf8', timeout: 30_000 },
  );
  if (result.status !== 0) {
    throw new Error(`svc hook install --client ${client} failed:\n${result.stdout}\n${result.stderr}`);
  }
}

/** The environment a client runs in: a clean one with its own home and this Node first on PATH. */
export function clientEnv(home: string, extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  return childEnv({
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    SVC_HOME: join(home, 'svc-home'),
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
    ...extra,
  });
}

/** A client's binary as `npm install` puts it in node_modules/.bin; undefined when absent. */
export function clientBin(name: string): string | undefined {
  const path = join(REPO_ROOT, 'node_modules', '.bin', name);
  return existsSync(path) ? path : undefined;
}

/** A suite's title, saying why it is skipped when the client's binary is missing. */
export function suiteTitle(title: string, bin: string | undefined, name: string): string {
  return bin ? title : `${title} (skipped: node_modules/.bin/${name} is missing; run npm install)`;
}

export interface ClientExit {
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** Runs a client to completion with stdin closed, killed (with its process group) after `timeoutMs`. */
export function runClient(
  bin: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 45_000,
): Promise<ClientExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, timedOut, stdout, stderr });
    });
  });
}

/**
 * Scripts `call` as the model's one tool call, runs the client, and checks that it asked the
 * stand-in for the call and finished in time. Resolves with its exit, what it showed (for a
 * failure's message) and everything the model was sent.
 */
export async function runScripted(
  standIn: StandIn,
  call: ToolCall,
  client: { bin: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
) {
  standIn.requests.length = 0;
  standIn.script(call);
  const exit = await runClient(client.bin, client.args, client.cwd, client.env, client.timeoutMs);
  const detail = `exit ${exit.code}${exit.timedOut ? ' (timed out)' : ''}\nstdout:\n${exit.stdout}\nstderr:\n${exit.stderr}`;
  expect(standIn.called(), `the stand-in never asked for the tool call: ${detail}`).toBe(true);
  expect(exit.timedOut, detail).toBe(false);
  return { exit, detail, seen: seenByModel(standIn) };
}

/** Every request body the stand-in received, joined: what reached the model. */
export function seenByModel(standIn: StandIn): string {
  return standIn.requests.map((r) => r.body).join('\n');
}

/** The routes of the requests whose body holds `text` (a short answer for a failing assertion). */
export function requestsHolding(standIn: StandIn, text: string): string[] {
  return standIn.requests.filter((r) => r.body.includes(text)).map((r) => r.route);
}

/**
 * Plants a key of OpenAI's documented project-key shape, random (no real credential), in the
 * project's `config/app.yml` on line 2: what each client's svc_scan_folder test finds. Returns it.
 */
export function plantKey(fixture: ReturnType<typeof clientProject>): string {
  const key = `sk-proj-${randomBytes(30).toString('base64url')}`;
  fixture.file(join(fixture.project, 'config', 'app.yml'), `service: shop\nopenai_api_key: ${key}\n`);
  return key;
}

/**
 * A key planted and scanned with `svc scan`, as the person would: its plan's rule item for the key's
 * file, the command that applies it in a terminal, and whether the project's rules file has it.
 */
export async function plannedKey(fixture: ReturnType<typeof clientProject>, env: NodeJS.ProcessEnv) {
  plantKey(fixture);
  expect((await runSvc(['scan', fixture.project, '--json'], env)).code).toBe(6);
  const plan = (await runSvc(['plan', fixture.project, '--json'], env)).json() as {
    scan_id: string;
    items: { id: string; kind: string; path: string }[];
  };
  const rule = plan.items.find((i) => i.kind === 'rule' && i.path === './config/app.yml');
  expect(rule, JSON.stringify(plan)).toBeDefined();
  return {
    id: rule!.id,
    // As the server writes it after the store's variables it runs with (which each client passes
    // on its own way: `store` is the one every client passes).
    command: svcCommandIn(
      {},
      'plan',
      'apply',
      realpathSync(fixture.project),
      '--scan',
      plan.scan_id,
      '--items',
      rule!.id,
    ),
    store: `SVC_HOME=${env.SVC_HOME}`,
    applied: () =>
      readFileSync(join(fixture.project, '.svc', 'rules.json'), 'utf8').includes('config/app.yml'),
  };
}

/**
 * What a client that shows its model the `structuredContent` must have handed it for the planted
 * key: the finding's place, rule, masked preview and fingerprint, the protected files not read, the
 * next step.
 */
export const SCAN_SEEN = {
  total_findings: 1,
  findings: [
    {
      file: 'config/app.yml',
      line: 2,
      category: 'secret',
      rule: 'openai-project-key',
      preview: expect.stringMatching(/^sk-p\*+ \(\d+ chars\)$/),
      fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
    },
  ],
  // The rules protect .env and secrets/: counted, never read.
  protected_files: expect.arrayContaining(['.env', 'secrets/token.txt']),
  next: expect.stringContaining('svc_plan'),
};

/** The requests (by route) that carried the planted key or the protected files' canary: none may. */
export function leaks(standIn: StandIn, fixture: ReturnType<typeof clientProject>, key: string): string[] {
  return [...requestsHolding(standIn, key), ...requestsHolding(standIn, fixture.canary)];
}
