// The MCP server: every implemented tool on the SDK's low-level Server, with its credential check
// and one mapping from core errors to tool errors. tools/list is answered from tool-list.json; the
// tool modules and their zod schemas load with the first tools/call.
import { randomUUID } from 'node:crypto';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { getParseErrorMessage, safeParseAsync } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { ServiceError, invalidInput } from '../backend/errors.ts';
import { inputErrorMap } from '../backend/input-messages.ts';
import { checkJsonShape } from '../backend/json-shape.ts';
import { printableLines } from '../backend/printable.ts';
import {
  MalformedCredential,
  MissingCredential,
  agentOf,
  ownerOf,
  ownerOrAgent,
  refusedCredentialHint,
} from './credentials.ts';
import { VaultError } from '../vault/key-vault.ts';
import type { Confirmation, ToolDefinition, ToolDeps, ToolResult } from './registry.ts';
import toolList from './tool-list.json' with { type: 'json' };

export const SERVER_NAME = 'svc';
export const SERVER_VERSION = '0.1.0';

/** What the SDK hands a tool callback besides its arguments (the parts svc uses). */
interface ToolExtra {
  authInfo?: { token?: string };
  _meta?: { progressToken?: string | number };
  sendNotification(notification: ServerNotification): Promise<void>;
}

/**
 * The text of a tool's answer: its own, then the next step from its structured answer when the
 * text does not say it already. Clients that show their model the text (Gemini CLI) then see the
 * next step that clients showing structuredContent (Claude Code, Codex) see.
 */
function withNextStep(result: ToolResult<unknown>): string {
  const next = (result.structured as { next?: unknown } | undefined)?.next;
  if (typeof next !== 'string' || next === '' || result.text.includes(next)) return result.text;
  return `${result.text}\nNext: ${next}`;
}

/**
 * A tool error is a result the model reads: what went wrong and what to do next. `hint` is a line
 * of this adapter's own: where a refused credential came from, which the service cannot know.
 */
function toolError(error: unknown, hint?: string): CallToolResult {
  let text: string;
  if (error instanceof MissingCredential) text = error.message;
  else if (error instanceof ServiceError) {
    // Local refusals and a remote service's error bodies arrive as the same typed error. A signed
    // receipt is named by its id (svc_verify checks it): the whole of it is noise in a model's context.
    const { error: code, message, ...details } = error.toBody();
    if (typeof details.receipt_id === 'string') delete details.receipt;
    const extra = Object.keys(details).length ? `\n${JSON.stringify(details)}` : '';
    const said =
      code === 'unauthorized' && hint && !(error instanceof MalformedCredential) ? `. ${hint}` : '';
    text = `${String(code)}: ${String(message)}${said}${extra}`;
  } else if (error instanceof VaultError) {
    text = `key_store_unavailable: ${error.message}`;
  } else {
    console.error('[svc mcp] tool failed:', error);
    text = 'internal: the tool failed unexpectedly; it was logged on the server';
  }
  return { isError: true, content: [{ type: 'text', text }] };
}

/** The implemented tools by name, loaded with the first call (listing needs none of them). */
let toolsByName: Promise<Map<string, ToolDefinition>> | undefined;
const loadTools = () =>
  (toolsByName ??= import('./index.ts').then(({ TOOLS }) => new Map(TOOLS.map((t) => [t.name, t]))));

/**
 * A failed check of a call's arguments or answer, worded as the SDK's McpServer words it: a tool
 * error the model reads, `MCP error -32602: ...`.
 */
const invalidParams = (message: string) => new McpError(ErrorCode.InvalidParams, message);

/**
 * The SDK's check of what a person answers a form, made when the first answer arrives rather than
 * with each server (compiling its formats is a part of the start a client waits for).
 */
let ajv: AjvJsonSchemaValidator | undefined;
const answersChecker: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/**
 * The clients rules name in `who`, by the name each gives at initialize (as measured: Claude Code
 * says `claude-code`, Gemini CLI `gemini-cli-mcp-client`, Codex `codex-mcp-client`).
 */
const KNOWN_CLIENTS: readonly (readonly [RegExp, string])[] = [
  [/^claude-code$/, 'claude-code'],
  [/^gemini-cli\b/, 'gemini-cli'],
  [/^codex\b/, 'codex'],
  [/^cursor\b/, 'cursor'],
];

/**
 * The name svc's rules give an MCP client (`who`), from the name it gave at initialize. Any other
 * client is `svc`, as every client was before clients were told apart: a name is the client's to
 * choose, and one of its own would start a `limit` rule's count afresh each time it changed.
 */
export function clientNameOf(name: string | undefined): string {
  const said = name?.trim().toLowerCase() ?? '';
  return KNOWN_CLIENTS.find(([known]) => known.test(said))?.[1] ?? 'svc';
}

/**
 * How long a form waits for the person: they may be reading the files it names, or away. (The
 * protocol library's default, a minute, cut people off mid-thought.)
 */
const PERSON_ANSWER_MS = 10 * 60 * 1000;

/**
 * One MCP server with every implemented tool. `deps` is called per tool call with the bearer the
 * transport authenticated, if any (HTTP transports); stdio passes none and reads its environment.
 * It may answer a promise, so a process can load what its tools need with the first call.
 *
 * The tools behave as `McpServer.registerTool` would register them (the listing, the checks of
 * input and structuredContent and their wording), without building 37 tools' schemas before the
 * first answer: a client starts the server in its critical path.
 */
export function createMcpServer(
  deps: (
    bearerToken: string | undefined,
  ) =>
    | Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress' | 'client'>
    | Promise<Omit<ToolDeps, 'confirm' | 'openUrl' | 'progress' | 'client'>>,
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: { listChanged: true } }, jsonSchemaValidator: answersChecker },
  );
  const confirm: ToolDeps['confirm'] = async (message) => {
    // A client that declares elicitation without naming modes does forms (the original mode).
    const elicitation = server.getClientCapabilities()?.elicitation as
      { form?: object; url?: object } | undefined;
    if (!elicitation || (!elicitation.form && elicitation.url)) return 'no_form';
    // Names and commands in the question may be anyone's: none can add a line or an escape to it.
    const shown = printableLines(message);
    let answer;
    try {
      answer = await server.elicitInput(
        {
          message: shown,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Go ahead', description: shown } },
            required: ['confirm'],
          },
        },
        { timeout: PERSON_ANSWER_MS },
      );
    } catch {
      // No answer in time, or the client failed the request: no yes, and the tool says what to do.
      return 'closed';
    }
    return answered(answer.action, answer.action === 'accept' && answer.content?.confirm === true);
  };
  const openUrl: ToolDeps['openUrl'] = async (message, url) => {
    const elicitation = server.getClientCapabilities()?.elicitation as { url?: object } | undefined;
    if (!elicitation?.url) return 'no_form';
    const answer = await server.elicitInput({
      mode: 'url',
      message: printableLines(message),
      url,
      elicitationId: randomUUID(),
    });
    return answered(answer.action, answer.action === 'accept');
  };

  /** Runs one tool: its credential check, then `work` (its handler); every failure is a tool error. */
  const run = async (
    tool: ToolDefinition,
    extra: ToolExtra,
    work: (toolDeps: ToolDeps) => Promise<ToolResult<unknown>> | ToolResult<unknown>,
  ): Promise<CallToolResult> => {
    const token = extra._meta?.progressToken;
    const progress: ToolDeps['progress'] = async (done, total, message) => {
      if (token === undefined) return;
      await extra.sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress: done,
          ...(total === undefined ? {} : { total }),
          message,
        },
      });
    };
    let toolDeps: ToolDeps | undefined;
    try {
      const client = clientNameOf(server.getClientVersion()?.name);
      toolDeps = { ...(await deps(extra.authInfo?.token)), confirm, openUrl, progress, client };
      // The credential tag is enforced here, for every tool, before its handler runs.
      if (tool.credential === 'owner') ownerOf(toolDeps);
      if (tool.credential === 'grant') agentOf(toolDeps);
      if (tool.credential === 'owner or grant') ownerOrAgent(toolDeps);
      const result = await work(toolDeps);
      return {
        content: [{ type: 'text', text: withNextStep(result) }],
        structuredContent: result.structured as Record<string, unknown>,
      };
    } catch (error) {
      return toolError(error, toolDeps && refusedCredentialHint(toolDeps, tool.credential));
    }
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList as unknown as Tool[] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    try {
      const tool = (await loadTools()).get(name);
      if (!tool) throw invalidParams(`Tool ${name} not found`);
      // The core's own messages for refused input (input-messages.ts), which name each field and
      // say what it takes, rather than zod's ("Invalid input: expected array, received undefined").
      const input = await tool.inputSchema.safeParseAsync(request.params.arguments ?? {}, {
        error: inputErrorMap,
      });
      if (!input.success) {
        const refused = invalidParams(
          `Input validation error: Invalid arguments for tool ${name}: ${invalidInput(input.error).message.replace(/^invalid request: /, '')}`,
        );
        // An audited tool's refused input goes to the core as sent: refused there too, the attempt
        // is recorded (a read's audit row). Where the core's schema would take it, nothing runs.
        const audits = tool.audits;
        const raw = request.params.arguments ?? {};
        if (!audits || audits.input.safeParse(raw).success) throw refused;
        return await run(tool, extra, async (toolDeps) => {
          await toolDeps.invoker.invoke(audits, agentOf(toolDeps), raw as never);
          throw refused;
        });
      }
      const result = await run(tool, extra, (toolDeps) => tool.handler(input.data as never, toolDeps));
      // A task-augmented call answers before its result exists, so there is nothing to check yet.
      if (request.params.task || result.isError) return result;
      if (!result.structuredContent) {
        throw invalidParams(
          `Output validation error: Tool ${name} has an output schema but no structured content was provided`,
        );
      }
      const output = await safeParseAsync(tool.outputSchema, result.structuredContent);
      if (!output.success) {
        throw invalidParams(
          `Output validation error: Invalid structured content for tool ${name}: ${getParseErrorMessage(output.error)}`,
        );
      }
      return result;
    } catch (error) {
      return { isError: true, content: [{ type: 'text', text: (error as Error).message }] };
    }
  });
  guardArguments(server);
  return server;
}

/**
 * Tool arguments are checked for shape as they arrive, before the SDK's schemas see them: a schema
 * drops a `__proto__` key without a word (a grant's `where` filter would silently vanish), so the
 * check that every other adapter makes in the core (json-shape.ts) must happen here, on the
 * message. A refused call is a tool error like any other, and nothing runs.
 */
function guardArguments(server: Server): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'tools/call' && 'id' in message) {
        try {
          checkJsonShape(message.params?.arguments);
        } catch (error) {
          void transport.send(
            { jsonrpc: '2.0', id: message.id, result: toolError(error) },
            { relatedRequestId: message.id },
          );
          return;
        }
      }
      deliver?.(message, extra);
    };
  };
}

/**
 * A form's answer: `cancel` is the form closed without a choice (dismissed, or never shown: Claude
 * Code's `-p` cancels every form at once), which is neither the person's yes nor their no.
 */
function answered(action: 'accept' | 'decline' | 'cancel', yes: boolean): Confirmation {
  if (action === 'cancel') return 'closed';
  return yes ? 'accepted' : 'declined';
}
