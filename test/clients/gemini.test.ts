// The real Gemini CLI (`@google/gemini-cli`), offline against a stand-in of the Gemini API, with
// svc's hook installed by `svc hook install`: a protected file never reaches the model through
// read_file, cat, grep -r or python -c, and a harmless read still does. And with svc's MCP server
// added by `gemini mcp add`: the text svc_scan_folder answers reaches the model, next step included;
// and, as Gemini CLI offers no confirmation forms, svc_plan applies on the model's confirmed: true.

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
  runClient,
  runScripted,
  sse,
  startStandIn,
  suiteTitle,
  type StandIn,
  type ToolCall,
  type Wire,
} from './stand-in.ts';

const GEMINI = clientBin('gemini');

/** generateContent and streamGenerateContent: one candidate with a functionCall part, or text. */
const geminiApi: Wire = {
  wantsToolCall: (body) =>
    Array.isArray(body.tools) &&
    body.tools.length > 0 &&
    !JSON.stringify(body.contents ?? []).includes('"functionResponse"'),
  answer(req, res, _body, call) {
    const url = req.url ?? '';
    if (url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 1 }));
      return;
    }
    if (!url.includes(':generateContent') && !url.includes(':streamGenerateContent')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: 'not here', status: 'NOT_FOUND' } }));
      return;
    }
    const part = call ? { functionCall: { name: call.name, args: call.args } } : { text: FINAL_TEXT };
    const chunk = {
      candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
      modelVersion: 'stand-in',
    };
    if (url.includes(':streamGenerateContent')) {
      sse(res, [{ data: chunk }]);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(chunk));
  },
};

/**
 * `gemini -p PROMPT` as the tests run it: no approvals, JSON out, and a named model (with none, a
 * router first asks the API to pick one, which the stand-in does not).
 */
const headless = (prompt: string) => [
  '-p',
  prompt,
  '--approval-mode',
  'yolo',
  '-o',
  'json',
  '-m',
  'gemini-2.5-flash',
];

describe.skipIf(!GEMINI)(suiteTitle('Gemini CLI with svc hook gemini', GEMINI, 'gemini'), () => {
  let standIn: StandIn;
  let fixture: ReturnType<typeof clientProject>;

  beforeAll(async () => {
    standIn = await startStandIn(geminiApi);
    fixture = clientProject('svc-gemini-client-');
    // The API key is the auth Gemini CLI uses (without this it stops at "Invalid auth method").
    fixture.file(
      join(fixture.home, '.gemini', 'settings.json'),
      JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
    );
    installHook('gemini', 'project', fixture.project, clientEnv(fixture.home, {}));
  });

  afterAll(async () => {
    await standIn?.close();
    fixture?.cleanup();
  });

  const run = (call: ToolCall) =>
    runScripted(standIn, call, {
      bin: GEMINI!,
      args: headless('Do what the tool call says.'),
      cwd: fixture.project,
      env: clientEnv(fixture.home, {
        GOOGLE_GEMINI_BASE_URL: standIn.url,
        GEMINI_API_KEY: 'standin-key',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      }),
    });

  it.each<[string, ToolCall]>([
    // Gemini CLI refuses a path with a `.env` segment by itself, so its own file tool is shown
    // refused by svc on the other protected file.
    ['read_file of secrets/token.txt', { name: 'read_file', args: { file_path: 'secrets/token.txt' } }],
    ['cat .env', { name: 'run_shell_command', args: { command: 'cat .env' } }],
    ['grep -r', { name: 'run_shell_command', args: { command: 'grep -r SVC_CANARY .' } }],
    [
      'python -c on .env',
      { name: 'run_shell_command', args: { command: `python3 -c "print(open('.env').read())"` } },
    ],
  ])('%s: denied by svc, and the canary never reaches the model', async (_route, call) => {
    const { exit, detail, seen } = await run(call);
    expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
    // The tool's answer to the model is svc's refusal, and Gemini CLI counts the call as failed.
    expect(seen, detail).toContain('svc:');
    expect(JSON.parse(exit.stdout).stats.tools, detail).toMatchObject({ totalCalls: 1, totalFail: 1 });
  });

  it('read_file of .env: refused, by Gemini CLI itself or by svc', async () => {
    const { exit, detail } = await run({ name: 'read_file', args: { file_path: '.env' } });
    expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
    expect(JSON.parse(exit.stdout).stats.tools, detail).toMatchObject({ totalCalls: 1, totalFail: 1 });
  });

  it('a harmless read still runs: its content reaches the model', async () => {
    const { exit, detail, seen } = await run({
      name: 'run_shell_command',
      args: { command: 'cat notes.txt' },
    });
    expect(seen, detail).toContain(fixture.harmless);
    expect(JSON.parse(exit.stdout).stats.tools, detail).toMatchObject({ totalCalls: 1, totalSuccess: 1 });
  });
});

describe.skipIf(!GEMINI)(
  suiteTitle('Gemini CLI with svc mcp: what svc_scan_folder hands the model', GEMINI, 'gemini'),
  () => {
    let standIn: StandIn;
    let fixture: ReturnType<typeof clientProject>;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      standIn = await startStandIn(geminiApi);
      fixture = clientProject('svc-gemini-mcp-');
      fixture.file(
        join(fixture.home, '.gemini', 'settings.json'),
        JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }),
      );
      env = clientEnv(fixture.home, {
        GOOGLE_GEMINI_BASE_URL: standIn.url,
        GEMINI_API_KEY: 'standin-key',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
      });
      const added = await runClient(
        GEMINI!,
        ['mcp', 'add', 'svc', ...SVC_MCP, '-e', `SVC_HOME=${env.SVC_HOME}`],
        fixture.project,
        env,
      );
      expect(added.code, `${added.stdout}\n${added.stderr}`).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await standIn?.close();
      fixture?.cleanup();
    });

    /** Runs `gemini -p PROMPT` with the stand-in scripted to make `call`. */
    const mcpCall = (call: ToolCall, prompt: string) =>
      runScripted(standIn, call, {
        bin: GEMINI!,
        args: headless(prompt),
        cwd: fixture.project,
        env,
        timeoutMs: 90_000,
      });

    it('the text reaches the model: each finding where it is with a masked preview, the files not read, the next step; never a value', async () => {
      const key = plantKey(fixture);
      const { detail } = await mcpCall(
        { name: 'mcp_svc_svc_scan_folder', args: { path: '.' } },
        'Scan this folder.',
      );
      const answer = functionResponse(standIn);
      expect(answer, detail).toBeDefined();
      expect(answer).toMatch(
        /config\/app\.yml:2:\d+ secret OPENAI_KEY \(openai-project-key\) sk-p\*+ \(\d+ chars\)/,
      );
      expect(answer).toContain('2 protected file(s) not read');
      expect(answer).toContain('Next: review the findings with the person; svc_plan');
      expect(leaks(standIn, fixture, key), detail).toEqual([]);
    });

    it("svc_plan apply: Gemini CLI offers no forms, so the model's confirmed: true, after asking the person, applies the plan", async () => {
      const rule = await plannedKey(fixture, env);
      const apply = (args: Record<string, unknown>) =>
        mcpCall(
          { name: 'mcp_svc_svc_plan', args: { action: 'apply', items: [rule.id], ...args } },
          'Apply the plan.',
        );
      const unasked = await apply({});
      expect(functionResponse(standIn), unasked.detail).toContain('call again with confirmed: true');
      expect(rule.applied()).toBe(false);
      const confirmed = await apply({ confirmed: true });
      expect(functionResponse(standIn), confirmed.detail).toContain(`Applied ${rule.id}`);
      expect(rule.applied()).toBe(true);
    });
  },
);

/** What Gemini CLI handed the model as the tool's answer: its functionResponse, as JSON text. */
function functionResponse(standIn: StandIn): string | undefined {
  for (const request of standIn.requests) {
    let body: { contents?: { parts?: { functionResponse?: { response?: unknown } }[] }[] };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      continue;
    }
    for (const content of body.contents ?? []) {
      for (const part of content.parts ?? []) {
        if (part.functionResponse) return JSON.stringify(part.functionResponse.response);
      }
    }
  }
  return undefined;
}
