// The tools/list answer as the declarations produce it, written to tool-list.json by
// `npm run docs:tools`: a server answers tools/list from that file, so a client's first listing
// builds no zod schema and loads no tool module (docs/MCP.md, Start-up). A test holds the file to
// this function.
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './registry.ts';

/**
 * One listed tool, field for field as the SDK's `McpServer.registerTool` lists it (the same
 * converter and options, the same key order), so moving the listing into a file changes no byte a
 * client sees.
 */
export function listedTool(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toJsonSchemaCompat(tool.inputSchema, {
      strictUnions: true,
      pipeStrategy: 'input',
    }) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
    execution: { taskSupport: 'forbidden' },
    outputSchema: toJsonSchemaCompat(tool.outputSchema, {
      strictUnions: true,
      pipeStrategy: 'output',
    }) as Tool['outputSchema'],
  };
}

/** The text of tool-list.json for these tools (prettier formats it when the script writes it). */
export function toolListJson(tools: readonly ToolDefinition[]): string {
  return `${JSON.stringify(tools.map(listedTool), null, 2)}\n`;
}
