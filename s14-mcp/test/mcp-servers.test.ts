/**
 * McpServers against real servers: the test server written with the SDK (over stdio, and over
 * Streamable HTTP on 127.0.0.1), the reference servers the protocol's authors publish (run from
 * node_modules), and a server that never answers. No mock: every call crosses a process boundary.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RichToolResult } from "../src/content/mcp-result.ts";
import { McpServers, mcpToolName } from "../src/mcp-servers.ts";
import {
  allGone,
  config,
  isRunning,
  PIXEL_LENGTH,
  pidsIn,
  referenceServer,
  silentServer,
  startHttpServer,
  testServer,
} from "./servers.ts";

const opened: McpServers[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const servers of opened.splice(0)) await servers.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "s14-servers-"));
  dirs.push(dir);
  return dir;
}

function servers(options: { startTimeoutMs?: number; toolTimeoutMs?: number } = {}) {
  const said: string[] = [];
  const made = new McpServers({ env: process.env, say: (line) => said.push(line), ...options });
  opened.push(made);
  return { servers: made, said };
}

const call = (found: McpServers, name: string, input: Record<string, unknown> = {}, signal?: AbortSignal) => {
  const tool = found.tools().find((t) => t.name === name);
  if (!tool)
    throw new Error(
      `no tool ${name}: ${found
        .tools()
        .map((t) => t.name)
        .join(", ")}`,
    );
  return tool.run(input, { cwd: ".", signal }) as Promise<RichToolResult>;
};

describe("McpServers", () => {
  it("lists each server's tools as mcp__SERVER__TOOL with the server's JSON Schema as it was sent", async () => {
    const { servers: found } = servers();
    await found.start([config("test", testServer())]);
    const echo = found.tools().find((t) => t.name === "mcp__test__echo");
    expect(echo?.description).toBe("Echo the text back.");
    expect(echo?.inputSchema).toEqual({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { text: { type: "string", description: "what to echo" } },
      required: ["text"],
    });
  });

  it("makes a round trip, and turns an isError answer into an is_error result", async () => {
    const { servers: found } = servers();
    await found.start([config("test", testServer())]);
    expect(await call(found, "mcp__test__echo", { text: "hello" })).toEqual({ content: "echo: hello", isError: false });
    expect(await call(found, "mcp__test__fail")).toEqual({
      content: "the thing you asked for is broken",
      isError: true,
    });
  });

  it("maps an image to an image block and an embedded resource to text headed by its URI", async () => {
    const { servers: found } = servers();
    await found.start([config("test", testServer())]);
    const image = await call(found, "mcp__test__image");
    expect(image.content).toBe(`a pixel\n[image: image/png, ${PIXEL_LENGTH} bytes of base64]`);
    expect(image.images).toEqual([
      { type: "image", source: { type: "base64", media_type: "image/png", data: expect.any(String) } },
    ]);
    expect((await call(found, "mcp__test__resource")).content).toBe("[resource file:///notes.txt]\nthe notes");
  });

  it("gives a call that takes too long an is_error result at MCP_TOOL_TIMEOUT, and the server goes on", async () => {
    const { servers: found } = servers({ toolTimeoutMs: 300 });
    await found.start([config("test", testServer())]);
    const started = performance.now();
    const slow = await call(found, "mcp__test__slow", { ms: 5_000 });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(slow.isError).toBe(true);
    expect(slow.content).toMatch(/^Error \[mcp_timeout\]: mcp__test__slow gave no answer within 300 ms/);
    expect((await call(found, "mcp__test__echo", { text: "still here" })).content).toBe("echo: still here");
  });

  it("gives a call whose server crashes an is_error result, and starts the server again once", async () => {
    const dir = scratch();
    const pidFile = join(dir, "pids");
    const { servers: found, said } = servers();
    await found.start([config("test", testServer({ PID_FILE: pidFile }))]);
    const crashed = await call(found, "mcp__test__crash");
    expect(crashed.isError).toBe(true);
    expect(crashed.content).toMatch(/^Error \[mcp_crashed\]: the MCP server test stopped during mcp__test__crash/);
    expect((await call(found, "mcp__test__echo", { text: "again" })).content).toBe("echo: again");
    expect(pidsIn(pidFile)).toHaveLength(2);
    expect(said).toEqual(["MCP server test stopped during a call: started again"]);
    // a second crash is the last: the server is out of the session
    await call(found, "mcp__test__crash");
    const after = await call(found, "mcp__test__echo", { text: "gone" });
    expect(after.content).toMatch(/^Error \[mcp_server_down\]: the MCP server test is out of this session/);
    expect(pidsIn(pidFile)).toHaveLength(2);
  });

  it("starts servers at once: one that never answers costs its timeout, not the others' tools", async () => {
    const pidFile = join(scratch(), "pids");
    const { servers: found, said } = servers({ startTimeoutMs: 6_000 });
    const started = performance.now();
    await found.start([config("silent", silentServer(pidFile)), config("test", testServer())]);
    expect(performance.now() - started).toBeLessThan(9_000); // the timeout, not the sum
    expect(said).toEqual([
      "MCP server silent not started: no answer to initialize and tools/list within 6000 ms (MCP_TIMEOUT)",
    ]);
    expect(found.tools().map((t) => t.name)).toContain("mcp__test__echo");
    expect(await allGone(pidsIn(pidFile))).toBe(true); // the silent one was stopped
  });

  it("says in one line why a server that cannot start did not, with its last line on stderr", async () => {
    const { servers: found, said } = servers();
    await found.start([
      config("missing", { command: "no-such-command-s14", args: [] }),
      config("dies", {
        command: process.execPath,
        args: ["-e", 'console.error("no database at /x"); process.exit(1)'],
      }),
    ]);
    expect(said.sort()).toEqual([
      "MCP server dies not started: it exited before it answered (its stderr: no database at /x)",
      expect.stringMatching(/^MCP server missing not started: spawn no-such-command-s14 ENOENT/),
    ]);
    expect(found.tools()).toEqual([]);
  });

  it("ends every server's process group on close, children of the server included", async () => {
    const pidFile = join(scratch(), "pids");
    // a shell that starts the server as its child: the SDK's transport would kill only the shell
    const { command, args } = testServer({ PID_FILE: pidFile });
    const wrapped = {
      command: "sh",
      args: ["-c", `${[command, ...args].map((a) => `'${a}'`).join(" ")}; sleep 60`],
      env: { PID_FILE: pidFile },
    };
    const { servers: found } = servers();
    await found.start([config("wrapped", wrapped)]);
    const [pid] = pidsIn(pidFile);
    expect(isRunning(pid)).toBe(true);
    await found.close();
    expect(await allGone([pid])).toBe(true);
  });

  it("speaks Streamable HTTP to a server on 127.0.0.1", async () => {
    const { url } = await startHttpServer();
    const { servers: found } = servers();
    await found.start([{ type: "http", name: "remote", url, headers: {}, file: "test", dir: "/", source: "user" }]);
    expect(await call(found, "mcp__remote__echo", { text: "over http" })).toEqual({
      content: "echo: over http",
      isError: false,
    });
  });

  it("calls the reference servers: everything's echo and image, filesystem's read_text_file", async () => {
    const dir = scratch();
    writeFileSync(join(dir, "notes.txt"), "from the filesystem server\n");
    const { servers: found, said } = servers();
    await found.start([
      config("everything", referenceServer("everything", "stdio")),
      config("fs", referenceServer("filesystem", dir)),
    ]);
    expect(said).toEqual([]);
    expect((await call(found, "mcp__everything__echo", { message: "hi" })).content).toBe("Echo: hi");
    const image = await call(found, "mcp__everything__get-tiny-image");
    expect(image.images?.[0].source).toMatchObject({ type: "base64", media_type: "image/png" });
    const read = await call(found, "mcp__fs__read_text_file", { path: join(dir, "notes.txt") });
    expect(read).toEqual({ content: "from the filesystem server\n", isError: false });
    const outside = await call(found, "mcp__fs__read_text_file", { path: "/etc/hostname" });
    expect(outside.isError).toBe(true); // the server's own rule: outside its directories
  });
});

describe("mcpToolName", () => {
  it("keeps the API's characters and its 64 characters", () => {
    expect(mcpToolName("files", "read")).toBe("mcp__files__read");
    expect(mcpToolName("my-server", "get.tiny image")).toBe("mcp__my-server__get_tiny_image");
    expect(mcpToolName("s", "x".repeat(100))).toHaveLength(64);
  });
});
