export * from "./agent-loop.ts";
export * from "./config/approve-servers.ts";
export * from "./config/mcp-config.ts";
export * from "./content/mcp-result.ts";
export * from "./flags.ts";
export * from "./mcp-servers.ts";
export * from "./tool-search.ts";
export * from "./transport/group-stdio-transport.ts";
