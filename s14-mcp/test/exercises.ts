/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`). The first is the build
 * exercise (`kind: "build"`): its change is the stub the reader starts from, it turns only the
 * tests it names red, and the chapter's own code is the reference that passes the whole suite. Test
 * infrastructure, not part of the chapter; the fields are described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the stub of the build exercise: every server tool sent, however many
    id: 1,
    kind: "build",
    file: "src/tool-search.ts",
    find: "  if (tokens <= limit) return { sent: [...tools], deferred: [], tokens, limit };\n  return { sent: [], deferred: [...tools], tokens, limit }; // too many: all held back, found by search\n",
    replace:
      "  // TODO: past the limit, hold every tool back (sent: none), to be found through tool_search\n  return { sent: [...tools], deferred: [], tokens, limit };\n",
    test: "holds 150 tools back behind tool_search|sends the tools while they take at most 10%",
    expect: "fail",
  },
  {
    // the server in the harness's process group: what it starts outlives it
    id: 2,
    file: "src/transport/group-stdio-transport.ts",
    find: "{ cwd, env, detached: true, stdio:",
    replace: "{ cwd, env, detached: false, stdio:",
    test: "ends every server's process group on close",
    expect: "fail",
  },
  {
    // no restart: a server that crashed once is out of the session
    id: 3,
    file: "src/mcp-servers.ts",
    find: "export const MAX_RESTARTS = 1;",
    replace: "export const MAX_RESTARTS = 0;",
    test: "starts the server again once",
    expect: "fail",
  },
];
