/**
 * MCP servers as tools. Every server starts when the session starts, all at once, each within
 * `MCP_TIMEOUT`: one that cannot be started, exits, or does not answer `initialize` and `tools/list`
 * in time is one line naming it, and the session goes on without it (a server that hangs never
 * holds up the others, nor drops their tools: anthropics/claude-code#35287, #60224). Each of its
 * tools becomes `mcp__SERVER__TOOL` in s02's map, with the server's JSON Schema passed through as
 * it is; a call goes through the same runner as every tool (s05's rules, s06's hooks, s04's trace,
 * s07's transcript). A call has its own timeout (`MCP_TOOL_TIMEOUT`: the server is told to cancel,
 * anthropics/claude-code#15945); an `isError` answer is an `is_error` result; a server that exits
 * in the middle of a call gives an `is_error` result and is started again once, for later calls.
 * Every server ends with the session (`close`, and `killServerGroups` on the way out).
 *
 * The protocol is the official SDK's (`Client`: the handshake, JSON-RPC, timeouts, cancellation;
 * its Streamable HTTP transport). Left out: resources and prompts as such, `list_changed`
 * (the tools are the ones listed at start), sampling and elicitation, OAuth.
 */
import type { Tool } from "@harness/s02-tool-dispatch";
import { codedError } from "@harness/s02-tool-dispatch";
import type { ToolResult } from "@harness/shared";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { DEFAULT_INHERITED_ENV_VARS } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ErrorCode, McpError, type Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import { describeServer, expandServer, type ServerConfig } from "./config/mcp-config.ts";
import { fromMcpResult, mcpError } from "./content/mcp-result.ts";
import { GroupStdioTransport, lastLine } from "./transport/group-stdio-transport.ts";

/** Milliseconds a server has to start and list its tools, unless `MCP_TIMEOUT` says (Claude Code's variable). */
export const DEFAULT_MCP_TIMEOUT_MS = 30_000;

/** Milliseconds a tool call may take, unless `MCP_TOOL_TIMEOUT` says: the bash tool's two minutes. */
export const DEFAULT_MCP_TOOL_TIMEOUT_MS = 120_000;

/** Times a server that exits is started again in a session. */
export const MAX_RESTARTS = 1;

/** Where a server is: listing tools, up, or out of the session (and why). */
export type ServerState =
  | { kind: "starting" }
  | { kind: "connected"; startMs: number }
  | { kind: "restarting" }
  | { kind: "failed"; why: string };

/** How the servers start and are called. */
export interface McpServersOptions {
  /** The harness's environment: `${VAR}` in the files is read from it, and a server's few variables. */
  env: NodeJS.ProcessEnv;
  startTimeoutMs?: number;
  toolTimeoutMs?: number;
  /** Told one line per server that did not start, or stopped. */
  say(line: string): void;
}

/** One server: its configuration, its connection while up, its tools as listed. */
interface Server {
  config: ServerConfig;
  state: ServerState;
  tools: McpTool[];
  client?: Client;
  transport?: Transport;
  restarts: number;
  /** The restart under way: later calls wait for it. */
  restarting?: Promise<void>;
}

/** The tool name the model calls: `mcp__SERVER__TOOL`, in the characters and length the API takes. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
}

/** The session's MCP servers: started together, called by tool, stopped together. */
export class McpServers {
  private readonly servers = new Map<string, Server>();
  private closed = false;
  private readonly startTimeoutMs: number;
  private readonly toolTimeoutMs: number;

  constructor(private readonly options: McpServersOptions) {
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
    this.toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_MCP_TOOL_TIMEOUT_MS;
  }

  /**
   * Start every server at once; resolves when each is up or out, within the start timeout.
   * Contract: never rejects; a server that does not start is one line, and is out of the session.
   */
  async start(configs: readonly ServerConfig[]): Promise<void> {
    await Promise.all(
      configs.map(async (config) => {
        const server: Server = { config, state: { kind: "starting" }, tools: [], restarts: 0 };
        this.servers.set(config.name, server);
        await this.connect(server);
        if (server.state.kind === "failed")
          this.options.say(`MCP server ${config.name} not started: ${server.state.why}`);
      }),
    );
  }

  /** Every tool of every server that is up, as s02's tools. */
  tools(): Tool[] {
    return [...this.servers.values()].flatMap((server) => server.tools.map((tool) => this.asTool(server, tool)));
  }

  /** Each server: its name, how it is reached, its state and its tools' names (for `/mcp`). */
  list(): { name: string; reached: string; state: ServerState; tools: string[] }[] {
    return [...this.servers.values()].map((s) => ({
      name: s.config.name,
      reached: describeServer(s.config),
      state: s.state,
      tools: s.tools.map((tool) => mcpToolName(s.config.name, tool.name)),
    }));
  }

  /** Stop every server: stdin closed, its group sent SIGTERM (SIGKILL after a grace). Contract: never throws. */
  close(): Promise<void> {
    this.closed = true;
    return Promise.all([...this.servers.values()].map((server) => this.disconnect(server))).then(() => {});
  }

  /** Connect, and list the tools, within the start timeout; on failure the server's process is stopped. */
  private async connect(server: Server): Promise<void> {
    const started = performance.now();
    const config = expandServer(server.config, this.options.env);
    const transport = this.transportFor(config);
    const client = new Client({ name: "harness-course", version: "0.1.0" });
    server.client = client;
    server.transport = transport;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.startTimeoutMs);
    try {
      const options = { signal: deadline.signal, timeout: this.startTimeoutMs };
      const gaveUp = new Promise<never>((_, reject) =>
        deadline.signal.addEventListener("abort", () => reject(new Error("timed out")), { once: true }),
      );
      await Promise.race([client.connect(transport, options), gaveUp]);
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await Promise.race([client.listTools(cursor ? { cursor } : undefined, options), gaveUp]);
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor);
      server.tools = tools;
      server.state = { kind: "connected", startMs: Math.round(performance.now() - started) };
      // a server that goes away later is noticed by the call that was waiting on it
      client.onclose = () => {
        if (!this.closed && server.client === client) server.state = { kind: "failed", why: "it exited" };
      };
    } catch (error) {
      const why = deadline.signal.aborted
        ? `no answer to initialize and tools/list within ${this.startTimeoutMs} ms (MCP_TIMEOUT)`
        : describeFailure(error, transport);
      server.state = { kind: "failed", why };
      await this.disconnect(server);
    } finally {
      clearTimeout(timer);
    }
  }

  private transportFor(config: ServerConfig): Transport {
    if (config.type === "http") {
      return new StreamableHTTPClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
    }
    const inherited = Object.fromEntries(DEFAULT_INHERITED_ENV_VARS.map((name) => [name, this.options.env[name]]));
    return new GroupStdioTransport({
      command: config.command,
      args: config.args,
      env: { ...inherited, ...config.env },
      cwd: config.dir, // the folder of the file that named it
    });
  }

  private async disconnect(server: Server): Promise<void> {
    const { client, transport } = server;
    server.client = undefined;
    server.transport = undefined;
    await (client ?? transport)?.close().catch(() => {});
  }

  private asTool(server: Server, tool: McpTool): Tool {
    return {
      name: mcpToolName(server.config.name, tool.name),
      description: tool.description ?? tool.title ?? tool.name,
      inputSchema: tool.inputSchema as Tool["inputSchema"], // the server's JSON Schema, as it sent it
      // the server checks the input against its schema; here only that it is an object
      parse: (input) =>
        input !== null && typeof input === "object" && !Array.isArray(input)
          ? { ok: true, value: input }
          : { ok: false, error: "the input is an object" },
      concurrencySafe: tool.annotations?.readOnlyHint === true, // the server says it only reads
      run: (input, context) => this.call(server, tool.name, input as Record<string, unknown>, context.signal),
    };
  }

  /** Call one tool. Contract: never throws; every way it fails is an `is_error` result. */
  private async call(
    server: Server,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<ToolResult> {
    const name = mcpToolName(server.config.name, tool);
    await server.restarting;
    const { client } = server;
    if (!client || server.state.kind !== "connected") {
      const why = server.state.kind === "failed" ? server.state.why : "it is not up";
      return mcpError("mcp_server_down", `the MCP server ${server.config.name} is out of this session: ${why}.`);
    }
    try {
      const options = { signal, timeout: this.toolTimeoutMs };
      const result = (await client.callTool({ name: tool, arguments: args }, undefined, options)) as CallToolResult;
      return fromMcpResult(result);
    } catch (error) {
      if (signal?.aborted)
        return codedError("interrupted", `the user interrupted ${name}; the server was told to cancel it.`);
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        return mcpError(
          "mcp_timeout",
          `${name} gave no answer within ${this.toolTimeoutMs} ms (MCP_TOOL_TIMEOUT); the server was told to cancel it.`,
        );
      }
      if (server.client !== client || server.state.kind !== "connected" || isClosed(error)) {
        return this.crashed(server, name, client);
      }
      return mcpError("mcp_error", `${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The server went away during a call: said, and started again once for later calls. */
  private crashed(server: Server, name: string, client: Client): ToolResult {
    const tail = lastLine(server.transport);
    if (server.client === client && !this.closed && server.restarts < MAX_RESTARTS) {
      server.restarts++;
      server.state = { kind: "restarting" };
      server.restarting = this.disconnect(server)
        .then(() => this.connect(server))
        .then(() => {
          server.restarting = undefined;
          const state = server.state;
          this.options.say(
            state.kind === "connected"
              ? `MCP server ${server.config.name} stopped during a call: started again`
              : `MCP server ${server.config.name} stopped during a call, and did not start again: ${state.kind === "failed" ? state.why : ""}`,
          );
        });
    } else if (server.client === client) {
      server.state = { kind: "failed", why: `it stopped during a call, after ${MAX_RESTARTS} restart` };
      void this.disconnect(server);
    }
    const again = server.state.kind === "restarting" ? " It is being started again for later calls." : "";
    return mcpError("mcp_crashed", `the MCP server ${server.config.name} stopped during ${name}${tail}.${again}`);
  }
}

function isClosed(error: unknown): boolean {
  return error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
}

/** Why a server did not start, with the last line it wrote on stderr. */
function describeFailure(error: unknown, transport: Transport): string {
  const message = error instanceof Error ? error.message : String(error);
  const closed = isClosed(error) ? "it exited before it answered" : message.split("\n")[0];
  return `${closed}${lastLine(transport)}`;
}
