/**
 * A project's `.mcp.json` runs programs on your machine the moment the session starts, so its
 * servers start only once you approve them, in one of two ways:
 *
 * - s05's one trust rule: asked at a terminal with the rest of what the project ships (its rules,
 *   hooks, agents), kept by a hash of exactly these servers; change one and you are asked again.
 *   Without a terminal they do not start, and one line says so.
 * - Your own `.harness/settings.local.json`, in Claude Code's words: `enableAllProjectMcpServers: true`,
 *   or the names in `enabledMcpjsonServers`; `disabledMcpjsonServers` keeps a server out in any case.
 *   Only a file that is yours counts: one git tracks, or that a link brings from outside `.harness`,
 *   came with the project, so what it approves is the project approving itself (s05's ruling).
 *
 * A server from a file you named with `--mcp-config` is yours, and starts without a question.
 */

import { join } from "node:path";
import { readProjectFile } from "@harness/s02-tool-dispatch";
import { LOCAL_SETTINGS, type Shipped, shippedWithProject } from "@harness/s05-permissions";
import { describeServer, PROJECT_MCP_FILE, type ServerConfig } from "./mcp-config.ts";

/** The kind the trust file keeps the project's servers under. */
export const MCP_TRUST_KIND = "mcpServers";

/** What your own settings.local.json says about the project's servers. */
export interface LocalApproval {
  all: boolean;
  enabled: string[];
  disabled: string[];
  /** Set when settings.local.json came with the project: then it approves nothing. */
  ignored?: string;
}

/**
 * Read `enableAllProjectMcpServers`, `enabledMcpjsonServers` and `disabledMcpjsonServers` from the
 * settings.local.json of `cwd`. Contract: never throws; no file, or one that does not parse, approves nothing.
 */
export function readLocalApproval(cwd: string): LocalApproval {
  const none: LocalApproval = { all: false, enabled: [], disabled: [] };
  let settings: Record<string, unknown>;
  try {
    settings = JSON.parse(readProjectFile(join(cwd, LOCAL_SETTINGS)));
  } catch {
    return none;
  }
  const names = (value: unknown) =>
    Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  const said: LocalApproval = {
    all: settings?.enableAllProjectMcpServers === true,
    enabled: names(settings?.enabledMcpjsonServers),
    disabled: names(settings?.disabledMcpjsonServers),
  };
  const shipped = shippedWithProject(cwd, LOCAL_SETTINGS);
  // a file the project shipped may still keep a server out: that only narrows
  return shipped ? { ...none, disabled: said.disabled, ignored: shipped } : said;
}

/** The project's servers, split: approved by your settings, left to the trust rule, kept out. */
export interface ServerApproval {
  /** Yours (--mcp-config), and the project's your settings.local.json approves. */
  approved: ServerConfig[];
  /** The project's others: they start only if s05's trust rule says so. */
  pending: ServerConfig[];
  /** Named in disabledMcpjsonServers. */
  disabled: ServerConfig[];
}

/** Split `servers` by whose they are and what `local` says. */
export function approveServers(servers: readonly ServerConfig[], local: LocalApproval): ServerApproval {
  const approval: ServerApproval = { approved: [], pending: [], disabled: [] };
  for (const server of servers) {
    if (server.source === "user") approval.approved.push(server);
    else if (local.disabled.includes(server.name)) approval.disabled.push(server);
    else if (local.all || local.enabled.includes(server.name)) approval.approved.push(server);
    else approval.pending.push(server);
  }
  return approval;
}

/** The pending servers as a thing to trust: one line each for the question, a count for the notice. */
export function shippedServers(pending: readonly ServerConfig[]): Shipped {
  const count = pending.length;
  return {
    kind: MCP_TRUST_KIND,
    // exactly what would run: the command, its arguments and environment, or the URL and headers
    definitions: pending.map(({ file: _, dir: __, source: ___, ...server }) => server),
    lines: pending.map((server) => `MCP server ${server.name}: ${describeServer(server)}   (${PROJECT_MCP_FILE})`),
    summary: count === 0 ? "" : `${count} MCP server${count === 1 ? "" : "s"} in ${PROJECT_MCP_FILE}`,
  };
}

/** The servers that start: the approved, and the pending when the trust rule trusts them. */
export function serversToStart(approval: ServerApproval, trusted: readonly string[]): ServerConfig[] {
  return trusted.includes(MCP_TRUST_KIND) ? [...approval.approved, ...approval.pending] : approval.approved;
}
