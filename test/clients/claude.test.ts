// The real Claude Code (`@anthropic-ai/claude-code`), offline against a stand-in of the Anthropic
// Messages API, with svc's hook installed by `svc hook install`: a protected file never reaches the
// model through Read, cat, grep -r or python -c, and a harmless read still does. And with svc's MCP
// server added by `claude mcp add`: what svc_send hands the model is enough to pass a link on, and
// what svc_scan_folder hands it says where each finding is and what to do next, with no value; and
// svc_plan's apply in `claude -p`, which closes every confirmation form unanswered, is refused and
// tells the model the command the person can run; files an ask rule covers are left unread there,
// and the model is told why and what the person can run.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Service } from '../../src/backend/service.ts';
import { ops } from '../../src/backend/operations/index.ts';
import { openFromLink } from '../../src/proofs/link-seal.ts';
import { runSvc } from '../e2e/procs.ts';
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
  seenByModel,
  sse,
  startStandIn,
  suiteTitle,
  type StandIn,
  type ToolCall,
  type Wire,
} from './stand-in.ts';

const CLAUDE = clientBin('claude');

/** The Messages API: a tool_use block streamed as input_json_delta, or one text block. */
const messagesApi: Wire = {
  wantsToolCall: (body) =>
    Array.isArray(body.tools) &&
    body.tools.length > 0 &&
    !JSON.stringify(body.messages ?? []).includes('"tool_result"'),
  answer(req, res, body, call) {
    if (!req.url?.startsWith('/v1/messages')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not here' } }));
      return;
    }
    if (req.url.startsWith('/v1/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 1 }));
      return;
    }
    const block = call
      ? { type: 'tool_use', id: 'toolu_standin_1', name: call.name, input: {} }
      : { type: 'text', text: '' };
    const delta = call
      ? { type: 'input_json_delta', partial_json: JSON.stringify(call.args) }
      : { type: 'text_delta', text: FINAL_TEXT };
    const usage = { input_tokens: 1, output_tokens: 1 };
    const message = { id: 'msg_standin', type: 'message', role: 'assistant', model: body.model ?? 'x' };
    const stop = call ? 'tool_use' : 'end_turn';
    if (!body.stream) {
      const content = call ? [{ ...block, input: call.args }] : [{ type: 'text', text: FINAL_TEXT }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...message, content, stop_reason: stop, stop_sequence: null, usage }));
      return;
    }
    sse(res, [
      {
        event: 'message_start',
        data: {
          type: 'message_start',
          message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage },
        },
      },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: block } },
      { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta } },
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      {
        event: 'message_delta',
        data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage },
      },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]);
  },
};

describe.skipIf(!CLAUDE)(suiteTitle('Claude Code with svc hook claude', CLAUDE, 'claude'), () => {
  let standIn: StandIn;
  let fixture: ReturnType<typeof clientProject>;

  beforeAll(async () => {
    standIn = await startStandIn(messagesApi);
    fixture = clientProject('svc-claude-client-');
    installHook('claude', 'project', fixture.project, clientEnv(fixture.home, {}));
  });

  afterAll(async () => {
    await standIn?.close();
    fixture?.cleanup();
  });

  const run = (call: ToolCall) =>
    runScripted(standIn, call, {
      bin: CLAUDE!,
      args: ['-p', 'Do what the tool call says.', '--output-format', 'json', '--allowedTools', call.name],
      cwd: fixture.project,
      env: clientEnv(fixture.home, {
        ANTHROPIC_BASE_URL: standIn.url,
        ANTHROPIC_API_KEY: 'standin-key',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ENABLE_TOOL_SEARCH: 'false',
      }),
    });

  it.each<[string, ToolCall]>([
    ['Read', { name: 'Read', args: { file_path: '.env' } }],
    ['cat', { name: 'Bash', args: { command: 'cat .env' } }],
    ['grep -r', { name: 'Bash', args: { command: 'grep -r SVC_CANARY .' } }],
    ['python -c', { name: 'Bash', args: { command: `python3 -c "print(open('.env').read())"` } }],
  ])('%s of .env: denied, and the canary never reaches the model', async (_route, call) => {
    const { exit, detail, seen } = await run(call);
    expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
    // The model is told svc refused, and Claude Code lists the denial.
    expect(seen, detail).toContain('svc:');
    const result = JSON.parse(exit.stdout);
    expect(result.permission_denials, detail).toEqual([
      expect.objectContaining({ tool_name: call.name, tool_use_id: 'toolu_standin_1' }),
    ]);
  });

  it('a harmless read still runs: its content reaches the model', async () => {
    const { exit, detail, seen } = await run({ name: 'Bash', args: { command: 'cat notes.txt' } });
    expect(seen, detail).toContain(fixture.harmless);
    expect(JSON.parse(exit.stdout).permission_denials, detail).toEqual([]);
  });

  // svc decides a Grep or Glob by the files Claude Code's ripgrep reads. What it lets through must
  // really leave the protected files out: the canary never reaches the model either way.
  describe('searches the protected files are ignored by, or filtered out of', () => {
    beforeAll(() => fixture.file(join(fixture.project, '.gitignore'), '.env\nsecrets/\n'));
    afterAll(() => rmSync(join(fixture.project, '.gitignore')));

    it.each<[string, ToolCall, 'allowed' | 'denied']>([
      [
        'Grep of the project, its protected files ignored',
        { name: 'Grep', args: { pattern: 'SVC_CANARY|harmless', output_mode: 'content' } },
        'allowed',
      ],
      [
        'Grep with a glob naming an ignored file (ripgrep reads it)',
        { name: 'Grep', args: { pattern: 'SVC_CANARY', output_mode: 'content', glob: '.env*' } },
        'denied',
      ],
      [
        'Grep with a glob naming files in an ignored folder (ripgrep does not go in)',
        { name: 'Grep', args: { pattern: 'SVC_CANARY|harmless', output_mode: 'content', glob: '*.txt' } },
        'allowed',
      ],
      ['Glob of text files, secrets/ among them', { name: 'Glob', args: { pattern: '**/*.txt' } }, 'denied'],
      ['Glob of Markdown files', { name: 'Glob', args: { pattern: '**/*.md' } }, 'allowed'],
    ])('%s: %s', async (_name, call, outcome) => {
      const { exit, detail, seen } = await run(call);
      expect(requestsHolding(standIn, fixture.canary), 'requests that carried the canary').toEqual([]);
      const denials = JSON.parse(exit.stdout).permission_denials;
      if (outcome === 'denied') expect(seen, detail).toContain('svc:');
      expect(denials, detail).toHaveLength(outcome === 'denied' ? 1 : 0);
      if (call.name === 'Grep' && outcome === 'allowed') expect(seen, detail).toContain(fixture.harmless);
    });
  });
});

describe.skipIf(!CLAUDE)(
  suiteTitle('Claude Code with svc mcp: what svc_send hands the model', CLAUDE, 'claude'),
  () => {
    let standIn: StandIn;
    let fixture: ReturnType<typeof clientProject>;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      standIn = await startStandIn(messagesApi);
      fixture = clientProject('svc-claude-mcp-');
      env = clientEnv(fixture.home, {
        ANTHROPIC_BASE_URL: standIn.url,
        ANTHROPIC_API_KEY: 'standin-key',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        ENABLE_TOOL_SEARCH: 'false',
      });
      const org = await runSvc(['org', 'create', '--name', 'Client Org', '--json'], env);
      const { api_key } = org.json() as { api_key: string };
      const added = await runClient(
        CLAUDE!,
        [
          'mcp',
          'add',
          'svc',
          '-e',
          `SVC_HOME=${env.SVC_HOME}`,
          '-e',
          `SVC_API_KEY=${api_key}`,
          '--',
          ...SVC_MCP,
        ],
        fixture.project,
        env,
      );
      expect(added.code, added.stderr).toBe(0);
    }, 60_000);

    afterAll(async () => {
      await standIn?.close();
      fixture?.cleanup();
    });

    /** Runs `claude -p PROMPT` with the stand-in scripted to make `call`; what it showed, for failures. */
    const ask = async (call: ToolCall, prompt: string) =>
      (
        await runScripted(standIn, call, {
          bin: CLAUDE!,
          args: ['-p', prompt, '--output-format', 'json', '--allowedTools', call.name],
          cwd: fixture.project,
          env,
          timeoutMs: 90_000,
        })
      ).detail;

    it('sees the link, the code to give separately and the next step; the link opens', async () => {
      const text = `the staging password is ${fixture.harmless}`;
      const call = { name: 'mcp__svc__svc_send', args: { text, code: true } };
      const detail = await ask(call, 'Share the text as a link.');
      const seen = seenByModel(standIn);
      const url = /http:\/\/127\.0\.0\.1:8787\/s\/([A-Za-z0-9_-]{22})#([A-Za-z0-9_-]{43})/.exec(seen);
      expect(url, detail).not.toBeNull();
      expect(seen).toMatch(/give the person the url exactly as it is/);
      const code = /access code ([2-9A-Z]{4}-[2-9A-Z]{4})/.exec(seen)?.[1];
      expect(code).toBeDefined();
      // The person's side: the page's open with the code, and the key from the url the model saw.
      const service = new Service({ dataDir: env.SVC_HOME! });
      try {
        const view = await service.invoke(ops.viewLink, undefined, { link_id: url![1]! });
        const released = await service.invoke(ops.openLink, undefined, {
          link_id: url![1]!,
          nonce: view.open_nonce!,
          code: code!,
        });
        const opened = await openFromLink(url![2]!, released);
        expect(new TextDecoder().decode(opened.content)).toBe(text);
      } finally {
        service.close();
      }
    });

    it('svc_scan_folder: sees where each finding is, its kind, a masked preview, the files it did not read and the next step; never a value', async () => {
      const key = plantKey(fixture);
      const call = { name: 'mcp__svc__svc_scan_folder', args: { path: '.' } };
      const detail = await ask(call, 'Scan this folder.');
      const result = toolResult(standIn);
      expect(result, detail).toBeDefined();
      const scan = JSON.parse(result!) as Record<string, unknown>;
      expect(scan).toMatchObject(SCAN_SEEN);
      // Neither the key nor the protected files' canary reached the model.
      expect(leaks(standIn, fixture, key), detail).toEqual([]);
    });

    it("svc_scan_folder with files an ask rule covers: `claude -p` closes svc's form, so they are not read, and the model is told why and what the person can run", async () => {
      const rules = join(fixture.project, '.svc', 'rules.json');
      const before = readFileSync(rules, 'utf8');
      const token = `ghp_${randomBytes(27).toString('base64url').replace(/[-_]/g, 'x').slice(0, 36)}`;
      fixture.file(join(fixture.project, 'drafts', 'plan.md'), `token ${token}\n`);
      fixture.file(
        rules,
        JSON.stringify([
          ...(JSON.parse(before) as unknown[]),
          { effect: 'ask', paths: ['drafts/'], reason: 'unfinished work' },
        ]),
      );
      try {
        const call = { name: 'mcp__svc__svc_scan_folder', args: { path: '.' } };
        const detail = await ask(call, 'Scan this folder.');
        const scan = JSON.parse(toolResult(standIn) ?? '{}') as { protected_files?: string[]; next?: string };
        expect(scan.protected_files, detail).toContain('drafts/plan.md');
        expect(scan.next).toContain(
          "1 file(s) a rule asks the person about were not read (svc's confirmation form was closed without an answer",
        );
        expect(scan.next).toMatch(
          /they can run `(?:SVC_\w+=\S+ )*\S+ \S+svc\.js scan \S+` in their own terminal/,
        );
        expect(requestsHolding(standIn, token), detail).toEqual([]);
      } finally {
        writeFileSync(rules, before);
        rmSync(join(fixture.project, 'drafts'), { recursive: true, force: true });
      }
    });

    it("svc_plan apply: `claude -p` closes svc's form unanswered, which is no yes even with the model's confirmed: true; the model is told what the person can run", async () => {
      const rule = await plannedKey(fixture, env);
      const call = {
        name: 'mcp__svc__svc_plan',
        args: { action: 'apply', items: [rule.id], confirmed: true },
      };
      const detail = await ask(call, 'Apply the plan.');
      const result = toolResult(standIn) ?? '';
      expect(result, detail).toContain('closed without an answer');
      expect(result).not.toContain('declined');
      expect(result).toContain(`${rule.store} `);
      expect(result).toContain(rule.command);
      expect(rule.applied()).toBe(false);
    });
  },
);

/**
 * What Claude Code handed the model as the tool's result: the text of the tool_result block (for
 * an MCP tool, its structuredContent as JSON).
 */
function toolResult(standIn: StandIn): string | undefined {
  for (const request of standIn.requests) {
    let body: { messages?: { content?: unknown }[] };
    try {
      body = JSON.parse(request.body) as typeof body;
    } catch {
      continue;
    }
    for (const message of body.messages ?? []) {
      if (!Array.isArray(message.content)) continue;
      for (const block of message.content as { type?: string; content?: unknown }[]) {
        if (block.type !== 'tool_result') continue;
        if (typeof block.content === 'string') return block.content;
        const texts = (block.content as { type?: string; text?: string }[]).filter((c) => c.type === 'text');
        return texts.map((c) => c.text).join('');
      }
    }
  }
  return undefined;
}
