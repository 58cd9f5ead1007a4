// One computer for the tests of svc's local tools: a home folder with a project (`.git`,
// `.svc/rules.json`), a Service over its data dir and the read gate, and MCP clients connected to an
// in-process server over them, with or without the person's confirmation form.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { tempDir } from '../helpers.ts';
import { Service } from '../../src/backend/service.ts';
import { GateCheck } from '../../src/backend/gate-check.ts';
import { createMcpServer } from '../../src/tools/server.ts';
import type { ToolDeps } from '../../src/tools/registry.ts';

/**
 * How the client answers svc's confirmation form: the person's yes or no; `cancel`, the form
 * closed without a choice (as Claude Code's `-p` answers every form); `fail`, a client that answers
 * the form's request with an error; or a client without forms.
 */
export type Elicit =
  | 'accept'
  | 'decline'
  | 'cancel'
  | 'fail'
  | 'unsupported'
  /** The person's answer after doing something while the form is open. */
  | ((message: string) => Promise<'accept' | 'decline' | 'cancel'>);

export interface ToolAnswer {
  error: boolean;
  text: string;
  /** The whole result as JSON, to look for a value anywhere in it. */
  all: string;
  data: Record<string, any>;
}

export interface Computer {
  home: string;
  project: string;
  service: Service;
  gate: GateCheck;
  /** Replaces the project's rules file. */
  rules(list: unknown[]): void;
  /** A client of a server given the gate and `local` (the finder, the seals, the runner…). */
  client(
    local: (service: Service) => Partial<ToolDeps>,
    elicit?: Elicit,
  ): Promise<
    (
      name: string,
      args: Record<string, unknown>,
      onprogress?: (p: { progress: number; total?: number }) => void,
    ) => Promise<ToolAnswer>
  >;
  /** What the confirmation forms asked, in order. */
  asked: string[];
  close(): Promise<void>;
}

export function computer(prefix: string, rules: unknown[] = []): Computer {
  const home = tempDir(prefix);
  const project = join(home.dir, 'shop');
  mkdirSync(join(project, '.git'), { recursive: true });
  mkdirSync(join(project, '.svc'), { recursive: true });
  const writeRules = (list: unknown[]) =>
    writeFileSync(join(project, '.svc', 'rules.json'), JSON.stringify(list));
  writeRules(rules);
  const service = new Service({ dataDir: join(home.dir, 'svc') });
  const gate = new GateCheck({
    dataDir: service.dataDir,
    env: { HOME: home.dir },
    core: () => service.ctx,
    watch: false,
  });
  const clients: Client[] = [];
  const asked: string[] = [];
  return {
    home: home.dir,
    project,
    service,
    gate,
    asked,
    rules: writeRules,
    async client(local, elicit = 'unsupported') {
      const server = createMcpServer(() => ({
        invoker: service.invoker,
        ownerBearer: undefined,
        agentBearer: undefined,
        credentialSource: 'environment',
        gate,
        ...local(service),
      }));
      const [c, s] = InMemoryTransport.createLinkedPair();
      await server.connect(s);
      const mcp = new Client(
        { name: prefix, version: '1' },
        { capabilities: elicit === 'unsupported' ? {} : { elicitation: {} } },
      );
      if (elicit !== 'unsupported') {
        mcp.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(String(request.params.message));
          const answer = typeof elicit === 'function' ? await elicit(String(request.params.message)) : elicit;
          if (answer === 'accept') return { action: 'accept', content: { confirm: true } };
          if (answer === 'fail') throw new Error('the form could not be shown');
          return { action: answer };
        });
      }
      await mcp.connect(c);
      clients.push(mcp);
      return async (name, args, onprogress) => {
        const result = await mcp.callTool(
          { name, arguments: args },
          undefined,
          onprogress ? { onprogress } : {},
        );
        return {
          error: result.isError === true,
          text: (result.content as { text: string }[]).map((t) => t.text).join('\n'),
          all: JSON.stringify(result),
          data: (result.structuredContent ?? {}) as Record<string, any>,
        };
      };
    },
    async close() {
      for (const c of clients) await c.close();
      await gate.close();
      service.close();
      home.cleanup();
    },
  };
}
