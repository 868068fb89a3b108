/**
 * Which MCP servers a session may start, in Claude Code's shape:
 *
 *     .mcp.json (the project's)   {"mcpServers": {"files": {"command": "node", "args": ["server.js"], "env": {}}}}
 *     --mcp-config FILE (yours)   the same shape; {"type": "http", "url": "...", "headers": {}} for Streamable HTTP
 *
 * A stdio server starts in the folder of the file that names it (the project's root for
 * `.mcp.json`), so a relative path in a file means the same wherever the session runs.
 * `${VAR}` and `${VAR:-default}` in a command, an argument, an environment value, a URL or a header
 * are read from the harness's environment when the server starts (a token stays out of the file).
 * A file that does not parse, or a server that is not one, is one line naming the file and the
 * server; the others load. Left out: Claude Code's user and local scopes (`~/.claude.json`), SSE
 * (deprecated in the protocol), OAuth.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readProjectFile } from "@harness/s02-tool-dispatch";
import { z } from "zod";

/** The project's server file, at the root of the working directory. */
export const PROJECT_MCP_FILE = ".mcp.json";

/** A server started as a process, spoken to over its stdin and stdout. */
export interface StdioServerConfig {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** A server reached over Streamable HTTP. */
export interface HttpServerConfig {
  type: "http";
  url: string;
  headers: Record<string, string>;
}

/** One server: its name, how to reach it, and whose file named it. */
export type ServerConfig = (StdioServerConfig | HttpServerConfig) & {
  name: string;
  /** The file that named it, as the lines show it (`.mcp.json`, or the path given to --mcp-config). */
  file: string;
  /** The folder of that file: a stdio server starts there. */
  dir: string;
  /** `project`: the project's `.mcp.json`, which starts only once approved; `user`: a file you named. */
  source: "project" | "user";
};

/** What reading the files found: the servers, and a line per one that is not a server. */
export interface ReadServers {
  servers: ServerConfig[];
  problems: string[];
}

// a server's name becomes part of a tool name (mcp__NAME__TOOL): letters, digits, - and _, no __
const NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;
const strings = z.record(z.string(), z.string());
const stdioShape = z.strictObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: strings.optional(),
});
const httpShape = z.strictObject({
  type: z.literal("http"),
  url: z.string().min(1),
  headers: strings.optional(),
});
const fileShape = z.looseObject({ mcpServers: z.record(z.string(), z.unknown()) });

/**
 * The servers of the project in `cwd` (its `.mcp.json`) and of each file given with `--mcp-config`
 * (a relative path from `typedIn`, where the command was typed). A name given twice is the later
 * file's (yours over the project's).
 * Contract: never throws; a file named with --mcp-config that is missing is a problem line.
 */
export function readServerConfigs(cwd: string, userFiles: readonly string[] = [], typedIn = cwd): ReadServers {
  const byName = new Map<string, ServerConfig>();
  const problems: string[] = [];
  const read = (path: string, file: string, source: ServerConfig["source"]) => {
    let parsed: z.infer<typeof fileShape>;
    try {
      parsed = fileShape.parse(JSON.parse(readProjectFile(path)));
    } catch (error) {
      const why = error instanceof z.ZodError ? 'expected {"mcpServers": {NAME: {...}}}' : firstLine(error);
      problems.push(`${file}: not read (${why})`);
      return;
    }
    for (const [name, raw] of Object.entries(parsed.mcpServers)) {
      const server = readServer(name, raw);
      if (typeof server === "string") problems.push(`${file}: server ${name}: ${server}`);
      else byName.set(name, { ...server, name, file, dir: dirname(path), source });
    }
  };
  const project = join(cwd, PROJECT_MCP_FILE);
  if (existsSync(project)) read(project, PROJECT_MCP_FILE, "project");
  for (const file of userFiles) {
    const path = resolve(typedIn, file);
    if (!existsSync(path)) problems.push(`--mcp-config ${file}: no such file`);
    else read(path, file, "user");
  }
  return { servers: [...byName.values()], problems };
}

/** One entry of `mcpServers`, checked; or what is wrong with it. */
function readServer(name: string, raw: unknown): StdioServerConfig | HttpServerConfig | string {
  if (!NAME.test(name)) return "a name is letters, digits, - and single _ (it becomes part of mcp__NAME__TOOL)";
  const type = (raw as { type?: unknown } | null)?.type;
  if (type === "http") {
    const http = httpShape.safeParse(raw);
    if (!http.success) return issues(http.error);
    return { type: "http", url: http.data.url, headers: http.data.headers ?? {} };
  }
  if (type !== undefined && type !== "stdio")
    return `type ${JSON.stringify(type)} is not one this harness speaks (stdio, http)`;
  const stdio = stdioShape.safeParse(raw);
  if (!stdio.success) return issues(stdio.error);
  return { type: "stdio", command: stdio.data.command, args: stdio.data.args ?? [], env: stdio.data.env ?? {} };
}

/**
 * `${VAR}` and `${VAR:-default}` in `text`, from `env`. Contract: a variable that is not set and
 * has no default is left as written, so the server's error names it.
 */
export function expandVariables(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (whole, name: string, fallback?: string) => {
    const value = env[name];
    return value !== undefined && value !== "" ? value : (fallback ?? whole);
  });
}

/** `server` with every `${VAR}` it holds read from `env`. */
export function expandServer(server: ServerConfig, env: NodeJS.ProcessEnv): ServerConfig {
  const each = (record: Record<string, string>) =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandVariables(value, env)]));
  if (server.type === "http") {
    return { ...server, url: expandVariables(server.url, env), headers: each(server.headers) };
  }
  const command = expandVariables(server.command, env);
  return { ...server, command, args: server.args.map((arg) => expandVariables(arg, env)), env: each(server.env) };
}

/** How a server is reached, in a few words: `node server.js` or `http http://127.0.0.1:3000/mcp`. */
export function describeServer(server: ServerConfig): string {
  return server.type === "http" ? `http ${server.url}` : [server.command, ...server.args].join(" ");
}

function issues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.length ? i.path.join(".") : "entry"}: ${i.message}`).join("; ");
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0];
}
