/**
 * `/mcp` in the REPL: each server, how it is reached, its state (connected, and in how long; or
 * why it is out of the session) and its tools, as the model calls them. Claude Code's `/mcp` also
 * reconnects a server; left out here.
 */
import type { ReplCommand } from "@harness/cli";
import type { McpServers } from "../mcp-servers.ts";

/** `/mcp`: each server, its state, and its tools. */
export function mcpCommand(servers: McpServers, print: (line: string) => void): ReplCommand {
  return {
    name: "mcp",
    help: "/mcp                     list the MCP servers, their state and their tools",
    async run() {
      const list = servers.list();
      if (list.length === 0) print("no MCP server in this session (.mcp.json, --mcp-config FILE)");
      for (const server of list) {
        const { state } = server;
        const how =
          state.kind === "connected"
            ? `connected in ${state.startMs} ms`
            : state.kind === "failed"
              ? `failed: ${state.why}`
              : state.kind;
        print(`${server.name}  ${how}  (${server.reached})`);
        if (server.tools.length > 0) print(`  ${server.tools.join(", ")}`);
      }
    },
  };
}
