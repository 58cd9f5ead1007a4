// The real Codex CLI (`@openai/codex`), offline against a stand-in of the OpenAI Responses API as a
// custom model provider, with svc's hook installed by `svc hook install`: a protected file never
// reaches the model through cat, grep -r or python -c (its shell is its only tool that reads
// files), and a harmless cat still does. And with svc's MCP server added by `codex mcp add`: what
// svc_scan_folder hands the model (its structuredContent) says where each finding is, with no value;
// and `codex exec` declines svc's confirmation form itself, so svc_plan applies nothing and the
// model is told the command the person can run.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clientBin,
  clientEnv,
  clientProject,
  FINAL_TEXT,
  installHook,
  SVC_MCP,
  leaks,
  plantKey,
  plannedKey,
  requestsHolding,
  SCAN_SEEN,
  runClient,
  runScripted,
  sse,
  startStandIn,
  suiteTitle,
  type StandIn,
  type ToolCall,
  type Wire,
} from './stand-in.ts';

const CODEX = clientBin('codex');

/** The Responses API: one output item, a function_call or an assistant message, then completed. */
const responsesApi: Wire = {
  wantsToolCall: (body) =>
    Array.isArray(body.tools) &&
    body.tools.length > 0 &&
    !JSON.stringify(body.input ?? []).includes('"function_call_output"'),
  answer(req, res, _body, call) {
    if (!req.url?.startsWith('/v1/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'not here', type: 'invalid_request_error' } }));
      return;
    }
    const item = call
      ? {
          type: 'function_call',
          id: 'fc_standin_1',
          call_id: 'call_standin_1',
          ...toolName(call.name),
          arguments: JSON.stringify(call.args),
        }
      : {
          type: 'message',
          id: 'msg_standin_1',
          role: 'assistant',
          content: [{ type: 'output_text', text: FINAL_TEXT, annotations: [] }],
        };
    const usage = {
      input_tokens: 1,
      input_tokens_details: null,
      output_tokens: 1,
      output_tokens_details: null,
      total_tokens: 2,
    };
    sse(res, [
      { event: 'response.created', data: { type: 'response.created', response: { id: 'resp_standin' } } },
      {
        event: 'response.output_item.done',
        data: { type: 'response.output_item.done', output_index: 0, item },
      },
      {
        event: 'response.completed',
        data: { type: 'response.completed', response: { id: 'resp_standin', usage } },
      },
    ]);
  },
};

/**
 * A tool's name in a function_call: an MCP server's tools are a namespace (`mcp__svc`) holding them
 * by their own names, written here `mcp__svc__svc_scan_folder` as Claude Code names them.
 */
function toolName(name: string): { name: string; namespace?: string } {
  const server = /^(mcp__.+?)__(.+)$/.exec(name);
  return server ? { namespace: server[1]!, name: server[2]! } : { name };
}

/** The settings that make the stand-in Codex's model provider, as `-c` options. */
function standInProvider(standIn: StandIn): string[] {
  return [
    'model_provider=standin',
    'model_providers.standin.name=standin',
    `model_providers.standin.base_url=${standIn.url}/v1`,
    'model_providers.standin.wire_api=responses',
    'model_providers.standin.env_key=STANDIN_API_KEY',
    'model=gpt-standin',
  ].flatMap((setting) => ['-c', setting]);
}

/** Codex's shell tool, as the model calls it (hooks see it as Bash). */
const shell = (cmd: string): ToolCall => ({ name: 'exec_command', args: { cmd } });

describe.skipIf(!CODEX)(suiteTitle('Codex with svc hook codex', CODEX, 'codex'), () => {
  let standIn: StandIn;
  let fixture: ReturnType<typeof clientProject>;
  let codexHome: string;

  beforeAll(async () => {
    standIn = await startStandIn(responsesApi);
    fixture = clientProject('svc-codex-client-');
    codexHome = join(fixture.home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    // Codex skips a project's hooks unless the project is trusted.
    writeFileSync(
      join(codexHome, 'config.toml'),
      `[projects.${JSON.stringify(fixture.project)}]\ntrust_level = "trusted"\n`,
    );
    installHook('codex', 'project', fixture.project, clientEnv(fixture.home, { CODEX_HOME: codexHome }));
  });

  afterAll(async () => {
    await standIn?.close();
    fixture?.cleanup();
  });

  const run = (call: ToolCall) =>
    runScripted(standIn, call, {
      bin: CODEX!,
      args: [
        'exec',
        ...standInProvider(standIn),
        '--dangerously-bypass-approvals-and-sandbox',
        // A new hook runs only once reviewed in Codex's /hooks view, which a test cannot open.
        '--dangerously-bypass-hook-trust',
        '--json',
        'Do what the tool call says.',
      ],
      cwd: fixture.project,
      env: clientEnv(fixture.home, { CODEX_HOME: codexHome, STANDIN_API_KEY: 'standin-key' }),
    });

  it.each<[string, ToolCall]>([
    ['cat', shell('cat .env')],
    ['grep -r', shell('grep -r SVC_CANARY .')],
    ['python -c', shell(`python3 -c "print(open('.env').read())"`)],
  ])('%s of .env: denied, and the canary never reaches the model', async (_route, call) => {
    const { exit, detail, seen } = await run(call);
    expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
    // The call's output the model gets is svc's refusal, and Codex ran no command.
    expect(seen, detail).toMatch(/"call_id":"call_standin_1","output":"[^"]*svc:/);
    expect(exit.stdout, detail).not.toContain('"type":"command_execution"');
  });

  it('a harmless cat still runs: its content reaches the model', async () => {
    const { exit, detail, seen } = await run(shell('cat notes.txt'));
    expect(seen, detail).toContain(fixture.harmless);
    expect(exit.stdout, detail).toContain('"type":"command_execution"');
  });

  // Codex searches with the ripgrep it ships. svc decides an rg line by the files it reads: hidden
  // and ignored ones are left out, unless its options bring them back. What it lets run must
  // really leave the protected files out: the canary never reaches the model either way.
  describe('rg over a project whose protected files are hidden or ignored', () => {
    beforeAll(() => fixture.file(join(fixture.project, '.gitignore'), 'secrets/\n'));
    afterAll(() => rmSync(join(fixture.project, '.gitignore')));

    it('rg runs: the harmless match reaches the model, the canary does not', async () => {
      const { exit, detail, seen } = await run(shell('rg -n "SVC_CANARY|harmless"'));
      expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
      expect(seen, detail).toContain(fixture.harmless);
      expect(exit.stdout, detail).toContain('"type":"command_execution"');
    });

    it.each([
      ['rg --hidden (.env is hidden, not ignored)', 'rg --hidden SVC_CANARY'],
      ['rg -uu', 'rg -uu SVC_CANARY'],
    ])('%s: denied', async (_name, command) => {
      const { exit, detail, seen } = await run(shell(command));
      expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
      expect(seen, detail).toMatch(/"call_id":"call_standin_1","output":"[^"]*svc:/);
      expect(exit.stdout, detail).not.toContain('"type":"command_execution"');
    });
  });
});

describe.skipIf(!CODEX)(
  suiteTitle('Codex with svc mcp: what svc_scan_folder hands the model', CODEX, 'codex'),
  () => {
    let standIn: StandIn;
    let fixture: ReturnType<typeof clientProject>;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      standIn = await startStandIn(responsesApi);
      fixture = clientProject('svc-codex-mcp-');
      const codexHome = join(fixture.home, '.codex');
      mkdirSync(codexHome, { recursive: true });
      env = clientEnv(fixture.home, { CODEX_HOME: codexHome, STANDIN_API_KEY: 'standin-key' });
      const added = await runClient(
        CODEX!,
        ['mcp', 'add', 'svc', '--env', `SVC_HOME=${env.SVC_HOME}`, '--', ...SVC_MCP],
        fixture.project,
        env,
      );
      expect(added.code, `${added.stdout}\n${added.stderr}`).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await standIn?.close();
      fixture?.cleanup();
    });

    /** Runs `codex exec PROMPT` with the stand-in scripted to make `call`; what it showed, for failures. */
    const exec = async (call: ToolCall, prompt: string) =>
      (
        await runScripted(standIn, call, {
          bin: CODEX!,
          args: [
            'exec',
            ...standInProvider(standIn),
            '--dangerously-bypass-approvals-and-sandbox',
            '--json',
            prompt,
          ],
          cwd: fixture.project,
          env,
          timeoutMs: 90_000,
        })
      ).detail;

    it('sees the structuredContent: each finding where it is with a masked preview, the files not read, the next step; never a value', async () => {
      const key = plantKey(fixture);
      const detail = await exec(
        { name: 'mcp__svc__svc_scan_folder', args: { path: '.' } },
        'Scan this folder.',
      );
      const output = callOutput(standIn);
      expect(output, detail).toBeDefined();
      // Codex puts the call's wall time first, then the structuredContent as JSON.
      const scan = JSON.parse(output!.slice(output!.indexOf('{'))) as Record<string, unknown>;
      expect(scan).toMatchObject(SCAN_SEEN);
      expect(leaks(standIn, fixture, key), detail).toEqual([]);
    });

    it("svc_plan apply: `codex exec` declines svc's form for the person, so nothing is applied; the model is told what the person can run", async () => {
      const rule = await plannedKey(fixture, env);
      const detail = await exec(
        {
          name: 'mcp__svc__svc_plan',
          args: { action: 'apply', items: [rule.id], confirmed: true },
        },
        'Apply the plan.',
      );
      const output = callOutput(standIn) ?? '';
      expect(output, detail).toContain('declined');
      expect(output).toContain('codex exec');
      expect(output).toContain(`${rule.store} `);
      expect(output).toContain(rule.command);
      expect(rule.applied()).toBe(false);
    });
  },
);

/** What Codex handed the model as the call's result: the function_call_output's text (or its items, as JSON). */
function callOutput(standIn: StandIn): string | undefined {
  for (const request of standIn.requests) {
    let body: { input?: { type?: string; output?: unknown }[] };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      continue;
    }
    const answer = (body.input ?? []).find((item) => item.type === 'function_call_output');
    if (typeof answer?.output === 'string') return answer.output;
    // A failed call's output comes as its content items.
    if (answer?.output !== undefined) return JSON.stringify(answer.output);
  }
  return undefined;
}
