// An MCP server that takes `argv[3]` ms to get ready (a database to open, a model to load: waiting,
// not computing), then serves one tool over stdio. `argv[2]` is the SDK's folder (resolved by the
// caller from s14-mcp, which depends on it: the folder its package.json resolves to).
const [sdk, ms] = process.argv.slice(2);
await new Promise((resolve) => setTimeout(resolve, Number(ms)));
const { McpServer } = await import(`${sdk}/server/mcp.js`);
const { StdioServerTransport } = await import(`${sdk}/server/stdio.js`);
const server = new McpServer({ name: "slow", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong." }, async () => ({
  content: [{ type: "text", text: "pong" }],
}));
await server.connect(new StdioServerTransport());
