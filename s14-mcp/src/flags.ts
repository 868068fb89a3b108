/**
 * s14's option and variables, and what they build: `--mcp-config FILE` (servers from a file you
 * name, more than once if you like), `MCP_TIMEOUT` and `MCP_TOOL_TIMEOUT` (milliseconds, Claude
 * Code's names); the servers read and split by whose they are (`readServers`), the project's
 * trusted or not in the one trust question.
 */
import type { CliOptions, ExtraOption } from "@harness/cli";
import { approveServers, readLocalApproval, type ServerApproval } from "./config/approve-servers.ts";
import { readServerConfigs } from "./config/mcp-config.ts";
import { DEFAULT_MCP_TIMEOUT_MS, DEFAULT_MCP_TOOL_TIMEOUT_MS } from "./mcp-servers.ts";
import { TOOL_SEARCH_SHARE } from "./tool-search.ts";

/** `--mcp-config FILE`: your servers, in `.mcp.json`'s shape. */
export const MCP_FLAGS: readonly ExtraOption[] = [
  {
    name: "mcp-config",
    type: "string",
    multiple: true,
    help: "--mcp-config FILE   MCP servers from FILE (.mcp.json's shape), yours: started without a question (repeatable)",
  },
];

/** The variables the help lists. */
export const MCP_ENVIRONMENT = [
  `MCP_TIMEOUT ms a server has to start and list its tools (default ${DEFAULT_MCP_TIMEOUT_MS})`,
  `MCP_TOOL_TIMEOUT ms an MCP tool call may take (default ${DEFAULT_MCP_TOOL_TIMEOUT_MS})`,
  `(the servers' tools are found through tool_search when they take over ${TOOL_SEARCH_SHARE * 100}% of --context-window)`,
];

/** The two timeouts, from the environment. Contract: a value that is not a whole number of ms throws one line. */
export function readMcpTimeouts(env: NodeJS.ProcessEnv): { startTimeoutMs: number; toolTimeoutMs: number } {
  const ms = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${name} expects milliseconds (a whole number), got ${JSON.stringify(raw)}`);
    return value;
  };
  return {
    startTimeoutMs: ms("MCP_TIMEOUT", DEFAULT_MCP_TIMEOUT_MS),
    toolTimeoutMs: ms("MCP_TOOL_TIMEOUT", DEFAULT_MCP_TOOL_TIMEOUT_MS),
  };
}

/**
 * The servers of the project in `cwd` and of each `--mcp-config` file, split: yours and the ones
 * your settings.local.json approves start; the project's others wait for the trust rule. Each
 * file or server that is not one is said in a line, and so is a settings.local.json that came with
 * the project (it approves nothing).
 */
export function readServers(
  { cwd, extra }: CliOptions,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
): ServerApproval {
  const files = (extra["mcp-config"] as string[] | undefined) ?? [];
  const read = readServerConfigs(cwd, files, env.INIT_CWD || process.cwd()); // a path as typed, from where it was typed
  read.problems.forEach(say);
  const local = readLocalApproval(cwd);
  const approval = approveServers(read.servers, local);
  if (local.ignored && approval.pending.length > 0) {
    say(`.harness/settings.local.json approves no MCP server: it is ${local.ignored}, so the project's`);
  }
  return approval;
}
