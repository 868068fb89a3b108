export * from "./agent-loop.ts";
export * from "./discover-skills.ts";
export * from "./flags.ts";
export * from "./preload-skills.ts";
export * from "./restate-skills.ts";
export * from "./skill-files/read-skill.ts";
export * from "./skills.ts";
