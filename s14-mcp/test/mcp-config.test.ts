/**
 * The server files and their approval: Claude Code's shape read, what is not a server said in a
 * line, `${VAR}` read from the environment, and which servers start without a question.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trustHash } from "@harness/s05-permissions";
import { afterEach, describe, expect, it } from "vitest";
import { approveServers, readLocalApproval, serversToStart, shippedServers } from "../src/config/approve-servers.ts";
import { expandServer, expandVariables, readServerConfigs } from "../src/config/mcp-config.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function projectWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), "s14-config-"));
  dirs.push(dir);
  for (const [path, value] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), typeof value === "string" ? value : JSON.stringify(value));
  }
  return dir;
}

describe("readServerConfigs", () => {
  it("reads stdio and http servers, the project's and yours, yours winning a name", () => {
    const cwd = projectWith({
      ".mcp.json": {
        mcpServers: { files: { command: "node", args: ["fs.js"] }, web: { type: "http", url: "http://x/mcp" } },
      },
      "mine.json": { mcpServers: { files: { command: "my-files" } } },
    });
    const { servers, problems } = readServerConfigs(cwd, ["mine.json"]);
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        type: "stdio",
        name: "files",
        command: "my-files",
        args: [],
        env: {},
        file: "mine.json",
        dir: cwd,
        source: "user",
      },
      { type: "http", name: "web", url: "http://x/mcp", headers: {}, file: ".mcp.json", dir: cwd, source: "project" },
    ]);
  });

  it("says in a line each file and server that is not one, and loads the others", () => {
    const cwd = projectWith({
      ".mcp.json": {
        mcpServers: {
          ok: { command: "a" },
          "bad name": { command: "b" },
          noCommand: {},
          sse: { type: "sse", url: "u" },
        },
      },
      "broken.json": "{ not json",
    });
    const { servers, problems } = readServerConfigs(cwd, ["broken.json", "missing.json"]);
    expect(servers.map((s) => s.name)).toEqual(["ok"]);
    expect(problems).toEqual([
      ".mcp.json: server bad name: a name is letters, digits, - and single _ (it becomes part of mcp__NAME__TOOL)",
      expect.stringMatching(/^\.mcp\.json: server noCommand: command: /),
      '.mcp.json: server sse: type "sse" is not one this harness speaks (stdio, http)',
      expect.stringMatching(/^broken\.json: not read \(/),
      "--mcp-config missing.json: no such file",
    ]);
  });
});

/** `${inner}`, as a file writes a variable (built, so no string looks like a template by mistake). */
const ref = (inner: string) => `$\{${inner}}`;

describe("expandVariables", () => {
  it("reads a variable and one with a default, and leaves a variable that is not set as written", () => {
    const env = { TOKEN: "t0k", EMPTY: "" };
    expect(expandVariables(`Bearer ${ref("TOKEN")}`, env)).toBe("Bearer t0k");
    expect(expandVariables(`${ref("EMPTY:-fallback")} ${ref("NOPE:-x")}`, env)).toBe("fallback x");
    expect(expandVariables(ref("NOPE"), env)).toBe(ref("NOPE"));
    const server = expandServer(
      {
        type: "http",
        name: "w",
        url: `http://${ref("HOST:-127.0.0.1")}/mcp`,
        headers: { Authorization: `Bearer ${ref("TOKEN")}` },
        file: "f",
        dir: "/",
        source: "user",
      },
      env,
    );
    expect(server).toMatchObject({ url: "http://127.0.0.1/mcp", headers: { Authorization: "Bearer t0k" } });
  });
});

describe("approveServers", () => {
  const project = (name: string) => ({
    type: "stdio" as const,
    name,
    command: "c",
    args: [],
    env: {},
    file: ".mcp.json",
    dir: "/p",
    source: "project" as const,
  });
  const yours = { ...project("mine"), source: "user" as const, file: "mine.json" };

  it("starts yours at once, the project's approved in your settings.local.json, the rest once trusted", () => {
    const cwd = projectWith({
      ".harness/settings.local.json": { enabledMcpjsonServers: ["a"], disabledMcpjsonServers: ["c"] },
    });
    const approval = approveServers([project("a"), project("b"), project("c"), yours], readLocalApproval(cwd));
    expect(approval.approved.map((s) => s.name)).toEqual(["a", "mine"]);
    expect(approval.pending.map((s) => s.name)).toEqual(["b"]);
    expect(approval.disabled.map((s) => s.name)).toEqual(["c"]);
    expect(serversToStart(approval, []).map((s) => s.name)).toEqual(["a", "mine"]);
    expect(serversToStart(approval, ["mcpServers"]).map((s) => s.name)).toEqual(["a", "mine", "b"]);
  });

  it("takes enableAllProjectMcpServers for every server of the project", () => {
    const cwd = projectWith({ ".harness/settings.local.json": { enableAllProjectMcpServers: true } });
    expect(approveServers([project("a"), project("b")], readLocalApproval(cwd)).pending).toEqual([]);
  });

  it("asks again when a server changes: the trust is a hash of exactly what would run", () => {
    const before = shippedServers([project("a")]);
    const after = shippedServers([{ ...project("a"), args: ["--more"] }]);
    expect(before.lines).toEqual(["MCP server a: c   (.mcp.json)"]);
    expect(before.summary).toBe("1 MCP server in .mcp.json");
    expect(trustHash(before)).not.toBe(trustHash(after));
  });
});
