// Types of mcp-launch.js, plain JavaScript as hook-launch.js is.
export const MCP_BUNDLE_SWITCH: string;
export function startMcp(onStop: () => void): Promise<void>;
