/**
 * s14 through the real CLI, against real MCP servers: the test server written with the SDK (over
 * stdio, and over Streamable HTTP on 127.0.0.1), the course's example server through the
 * repository's sample `.mcp.json`, and a server that never answers. The model is scripted and
 * served on 127.0.0.1; what each request carried is read off it, what ran off the server's call
 * log, what is left running off its pid file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "@harness/cli";
import { reply, textReply, toolUse } from "@harness/scripted-model";
import { historyProblems } from "@harness/shared";
import { until } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { jsonResult, lastResults, mcpFile, s14Runner, sent, toolNames, toolResultText } from "./run-cli.ts";
import { allGone, pidsIn, silentServer, startHttpServer, testServer } from "./servers.ts";

const { serve, serveBrain, runHere, runAtTerminal, startCli, project } = s14Runner();

const ASK = "Use the test server";
const call = (name: string, input: Record<string, unknown> = {}, id?: string) => reply([toolUse(name, input, id)]);

/** A project with the test server in a file of yours (--mcp-config), its pids and calls logged there. */
function withTestServer(more: Record<string, string> = {}) {
  const cwd = project();
  const pidFile = join(cwd, "pids");
  const callLog = join(cwd, "calls");
  const file = mcpFile(cwd, { test: testServer({ PID_FILE: pidFile, CALL_LOG: callLog, ...more }) });
  return { cwd, pidFile, callLog, args: ["--cwd", cwd, "--mcp-config", file, "--allow", "mcp__test"] };
}

describe("pnpm s14", () => {
  it("runs the offline demo: the course's server from the sample .mcp.json, the answer from its tool", async () => {
    const { env } = await serveBrain(); // for its clean environment only: the demo runs on the scripted model
    const { ANTHROPIC_API_KEY: _, ANTHROPIC_BASE_URL: __, ...offline } = env;
    const args = ["--mcp-config", join(REPO_ROOT, "s14-mcp", "example", ".mcp.json"), "--allow", "mcp__course"];
    const { code, stdout, stderr } = await runHere(
      ["--cwd", project(), ...args, "Ask the course's MCP server what s05 adds"],
      offline,
    );
    expect(stderr).toMatch(/offline scripted model/);
    expect(code).toBe(0);
    expect(stdout).toContain('  mcp__course__chapter: {"id":"s05"}');
    expect(stdout).toContain(
      "The course's MCP server says: s05-permissions: allow, ask and deny rules and modes in front of every tool call",
    );
  }, 60_000);

  it("does not wait on a named pipe a project ships as its .mcp.json or an agent file: one line each, the run goes on", async () => {
    const { model, env } = await serve([textReply("Seen.")]);
    const cwd = project();
    mkdirSync(join(cwd, ".harness", "agents"), { recursive: true });
    execFileSync("mkfifo", [join(cwd, ".mcp.json"), join(cwd, ".harness", "agents", "x.md")]);
    const { code, stderr } = await runHere(["--cwd", cwd, ASK], env);
    expect(code).toBe(0);
    expect(stderr).toContain(".mcp.json: not read (");
    expect(stderr).toContain(".harness/agents/x.md: not read (");
    expect(stderr).toMatch(/is a named pipe, not a regular file/);
    expect(sent(model)).toHaveLength(1);
  }, 30_000);

  it("offers each server tool as mcp__SERVER__TOOL with the server's JSON Schema", async () => {
    const { model, env } = await serve([textReply("Seen.")]);
    const { args } = withTestServer();
    expect((await runHere([...args, ASK], env)).code).toBe(0);
    const [first] = sent(model);
    expect(toolNames(first)).toEqual(expect.arrayContaining(["bash", "mcp__test__echo", "mcp__test__fail"]));
    const echo = first.tools?.find((tool) => "name" in tool && tool.name === "mcp__test__echo");
    expect(echo).toMatchObject({
      description: "Echo the text back.",
      input_schema: {
        $schema: "http://json-schema.org/draft-07/schema#",
        type: "object",
        properties: { text: { type: "string", description: "what to echo" } },
        required: ["text"],
      },
    });
  });

  it("makes a round trip, and sends an isError answer as an is_error result", async () => {
    const { model, env } = await serve([
      reply([toolUse("mcp__test__echo", { text: "ping" }), toolUse("mcp__test__fail", {})]),
      textReply("One worked."),
    ]);
    const { args, callLog } = withTestServer();
    const { code, stdout } = await runHere([...args, "--json", ASK], env);
    expect(code).toBe(0);
    const [echo, fail] = lastResults(sent(model)[1]);
    expect([toolResultText(echo), echo.is_error]).toEqual(["echo: ping", false]);
    expect([toolResultText(fail), fail.is_error]).toEqual(["the thing you asked for is broken", true]);
    expect(readFileSync(callLog, "utf8").split("\n").filter(Boolean)).toHaveLength(2);
    expect(jsonResult(stdout).toolCalls).toBe(2);
  });

  it("sends an image a server returns as an image block after its text", async () => {
    const { model, env } = await serve([call("mcp__test__image"), textReply("A pixel.")]);
    const { args } = withTestServer();
    expect((await runHere([...args, ASK], env)).code).toBe(0);
    const [image] = lastResults(sent(model)[1]);
    expect(image.content).toEqual([
      { type: "text", text: "a pixel\n[image: image/png, 96 bytes of base64]" },
      { type: "image", source: { type: "base64", media_type: "image/png", data: expect.any(String) } },
    ]);
  });

  it("goes on without a server that never answers initialize, within MCP_TIMEOUT, in one line", async () => {
    const { model, env } = await serve([call("mcp__test__echo", { text: "up" }), textReply("Done.")]);
    const { cwd, args } = withTestServer();
    const pidFile = join(cwd, "silent-pids");
    const file = mcpFile(cwd, { silent: silentServer(pidFile) }, "silent.json");
    const started = performance.now();
    const { code, stderr } = await runHere([...args, "--mcp-config", file, ASK], { ...env, MCP_TIMEOUT: "5000" });
    expect(code).toBe(0);
    expect(performance.now() - started).toBeLessThan(20_000);
    const lines = stderr.split("\n").filter((line) => line.includes("silent"));
    expect(lines).toEqual([
      "s14: MCP server silent not started: no answer to initialize and tools/list within 5000 ms (MCP_TIMEOUT)",
    ]);
    expect(toolNames(sent(model)[0])).toContain("mcp__test__echo");
    expect(toolResultText(lastResults(sent(model)[1])[0])).toBe("echo: up");
    expect(await allGone(pidsIn(pidFile))).toBe(true);
  }, 60_000);

  it("answers a call whose server crashes with is_error, and the server started again answers the next", async () => {
    const { model, env } = await serve([
      call("mcp__test__crash"),
      call("mcp__test__echo", { text: "back" }),
      textReply("It came back."),
    ]);
    const { args, pidFile } = withTestServer();
    const { code, stderr } = await runHere([...args, ASK], env);
    expect(code).toBe(0);
    const [crashed] = lastResults(sent(model)[1]);
    expect(crashed.is_error).toBe(true);
    expect(toolResultText(crashed)).toMatch(
      /^Error \[mcp_crashed\]: the MCP server test stopped during mcp__test__crash/,
    );
    expect(toolResultText(lastResults(sent(model)[2])[0])).toBe("echo: back");
    expect(stderr).toContain("s14: MCP server test stopped during a call: started again");
    expect(historyProblems(sent(model)[2].messages)).toEqual([]);
    expect(await allGone(pidsIn(pidFile))).toBe(true); // both, the first and the one started again
  }, 60_000);

  it("gives a call MCP_TOOL_TIMEOUT, then an is_error result that names it", async () => {
    const { model, env } = await serve([call("mcp__test__slow", { ms: 30_000 }), textReply("Too slow.")]);
    const { args } = withTestServer();
    const { code } = await runHere([...args, ASK], { ...env, MCP_TOOL_TIMEOUT: "500" });
    expect(code).toBe(0);
    const [slow] = lastResults(sent(model)[1]);
    expect(slow.is_error).toBe(true);
    expect(toolResultText(slow)).toMatch(/^Error \[mcp_timeout\]: mcp__test__slow gave no answer within 500 ms/);
  });

  it("keeps a denied call from reaching the server (mcp__SERVER__TOOL and mcp__SERVER rules)", async () => {
    for (const rule of ["mcp__test__echo", "mcp__test"]) {
      const { model, env } = await serve([call("mcp__test__echo", { text: "no" }), textReply("Denied.")]);
      const { args, callLog } = withTestServer();
      const { code } = await runHere([...args, "--deny", rule, ASK], env);
      expect(code).toBe(0);
      const [denied] = lastResults(sent(model)[1]);
      expect(denied.is_error).toBe(true);
      expect(toolResultText(denied)).toContain(`rule ${rule} from --deny`);
      expect(existsSync(callLog)).toBe(false);
    }
  });

  it("runs a PreToolUse hook on mcp__SERVER__TOOL, which may keep the call from the server", async () => {
    const { model, env } = await serve([call("mcp__test__echo", { text: "hooked" }), textReply("Blocked.")]);
    const { cwd, args, callLog } = withTestServer();
    const block = { type: "command", command: "cat > hook-input.json; echo 'not this one' >&2; exit 2" };
    const hooks = { hooks: { PreToolUse: [{ matcher: "mcp__test__.*", hooks: [block] }] } };
    mkdirSync(join(cwd, ".harness"));
    writeFileSync(join(cwd, ".harness", "settings.local.json"), JSON.stringify(hooks));
    const { code } = await runHere([...args, ASK], env);
    expect(code).toBe(0);
    const [blocked] = lastResults(sent(model)[1]);
    expect(blocked.is_error).toBe(true);
    expect(toolResultText(blocked)).toContain("not this one");
    expect(JSON.parse(readFileSync(join(cwd, "hook-input.json"), "utf8"))).toMatchObject({
      tool_name: "mcp__test__echo",
      tool_input: { text: "hooked" },
    });
    expect(existsSync(callLog)).toBe(false);
  });

  it("asks before an MCP tool no rule names: without a terminal the answer is no", async () => {
    const { model, env } = await serve([call("mcp__test__echo", { text: "ask" }), textReply("Not allowed.")]);
    const { cwd, callLog } = withTestServer();
    const file = join(cwd, "servers.json");
    const { code, stderr } = await runHere(["--cwd", cwd, "--mcp-config", file, ASK], env);
    expect(code).toBe(0);
    expect(stderr).toMatch(/no terminal to ask/);
    expect(lastResults(sent(model)[1])[0].is_error).toBe(true);
    expect(existsSync(callLog)).toBe(false);
  });

  it("does not start an untrusted project's .mcp.json without a terminal, and says so in one line", async () => {
    const { model, env } = await serve([textReply("No servers.")]);
    const cwd = project();
    const pidFile = join(cwd, "pids");
    mcpFile(cwd, { test: testServer({ PID_FILE: pidFile }) }, ".mcp.json");
    const { code, stderr } = await runHere(["--cwd", cwd, ASK], env);
    expect(code).toBe(0);
    expect(stderr).toContain(
      "s14: project settings not applied (not trusted yet): 1 MCP server in .mcp.json; start the harness at a terminal to review them",
    );
    expect(existsSync(pidFile)).toBe(false);
    expect(toolNames(sent(model)[0]).filter((name) => name.startsWith("mcp__"))).toEqual([]);
  });

  it("starts a project's server once trusted at a terminal, in the one trust question", async () => {
    const cwd = project();
    const pidFile = join(cwd, "pids");
    mcpFile(cwd, { test: testServer({ PID_FILE: pidFile }) }, ".mcp.json");
    const { env } = await serve([textReply("Started.")]);
    const { code, stdout } = await runAtTerminal(["--cwd", cwd, ASK], env, "yes\n");
    expect(code).toBe(0);
    expect(stdout).toContain("MCP server test: ");
    expect(stdout).toContain("(.mcp.json)");
    expect(pidsIn(pidFile)).toHaveLength(1);
  }, 60_000);

  it("starts a project's server your own settings.local.json approves, not one a tracked file approves", async () => {
    for (const tracked of [false, true]) {
      const { env } = await serve([textReply("Hello.")]);
      const cwd = project({}, { git: true });
      const pidFile = join(cwd, "pids");
      mcpFile(cwd, { test: testServer({ PID_FILE: pidFile }) }, ".mcp.json");
      mkdirSync(join(cwd, ".harness"));
      writeFileSync(join(cwd, ".harness", "settings.local.json"), JSON.stringify({ enabledMcpjsonServers: ["test"] }));
      if (tracked) execFileSync("git", ["add", ".harness/settings.local.json"], { cwd });
      const { code, stderr } = await runHere(["--cwd", cwd, ASK], env);
      expect(code).toBe(0);
      expect(pidsIn(pidFile), `tracked: ${tracked}`).toHaveLength(tracked ? 0 : 1);
      if (tracked) expect(stderr).toContain("approves no MCP server: it is tracked by git");
    }
  }, 60_000);

  it("leaves no server process behind after the run", async () => {
    const { env } = await serve([call("mcp__test__echo", { text: "x" }), textReply("Done.")]);
    const { args, pidFile } = withTestServer();
    expect((await runHere([...args, ASK], env)).code).toBe(0);
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(1);
    expect(await allGone(pids)).toBe(true);
  });

  it("leaves no server process behind after Ctrl-C in the middle of a call", async () => {
    const { env } = await serve([call("mcp__test__slow", { ms: 60_000 })]);
    const { args, pidFile } = withTestServer();
    const cli = startCli([...args, ASK], env);
    await until("the slow call", () => cli.stdout().includes("mcp__test__slow"));
    const pids = pidsIn(pidFile);
    expect(pids).toHaveLength(1);
    cli.child.kill("SIGINT");
    expect(await cli.exited).toBe(130);
    expect(await allGone(pids)).toBe(true);
  }, 60_000);

  it("talks to a server over Streamable HTTP on 127.0.0.1", async () => {
    const { url } = await startHttpServer();
    const { model, env } = await serve([call("mcp__remote__echo", { text: "http" }), textReply("Over HTTP.")]);
    const cwd = project();
    const file = mcpFile(cwd, { remote: { type: "http", url } });
    const { code } = await runHere(["--cwd", cwd, "--mcp-config", file, "--allow", "mcp__remote", ASK], env);
    expect(code).toBe(0);
    expect(toolResultText(lastResults(sent(model)[1])[0])).toBe("echo: http");
  }, 60_000);

  it("holds 150 tools back behind tool_search, and the model finds and calls the one it needs", async () => {
    const { model, env } = await serveBrain();
    const cwd = project();
    const pidFile = join(cwd, "pids");
    const file = mcpFile(cwd, { many: testServer({ MANY: "144", PID_FILE: pidFile }) });
    const { code, stdout, stderr } = await runHere(
      ["--cwd", cwd, "--mcp-config", file, "--allow", "mcp__many", "Find a tool to forecast the weather and use it"],
      env,
    );
    expect(code).toBe(0);
    expect(stderr).toMatch(
      /s14: 150 MCP tools \(about \d+ tokens, over 10% of the 200000-token window\) are found through tool_search/,
    );
    const [first, second, third] = sent(model);
    expect(toolNames(first)).toContain("tool_search");
    expect(toolNames(first).filter((name) => name.startsWith("mcp__"))).toEqual([]);
    expect(toolNames(second)).toContain("mcp__many__weather_forecast"); // loaded by the search
    expect(toolNames(second).filter((name) => name.startsWith("mcp__")).length).toBeLessThanOrEqual(5);
    expect(toolResultText(lastResults(third)[0])).toBe("sunny, 21 degrees");
    expect(stdout).toContain("mcp__many__weather_forecast answered: sunny, 21 degrees");
  }, 60_000);

  it("lists the servers, their state and their tools with /mcp in the REPL", async () => {
    const { env } = await serve([]);
    const { cwd, args } = withTestServer();
    const silent = mcpFile(cwd, { silent: silentServer(join(cwd, "silent")) }, "silent.json");
    const { code, stdout } = await runHere(
      [...args, "--mcp-config", silent],
      { ...env, MCP_TIMEOUT: "4000" },
      "/mcp\n",
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/^(?:s14 >> )?test {2}connected in \d+ ms {2}\(.*test-server\.ts\)$/m);
    expect(stdout).toMatch(/^ {2}mcp__test__echo, mcp__test__fail, mcp__test__image, /m);
    expect(stdout).toMatch(
      /^silent {2}failed: no answer to initialize and tools\/list within 4000 ms \(MCP_TIMEOUT\)/m,
    );
  }, 60_000);
});
