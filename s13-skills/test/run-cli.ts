/**
 * s13's command line run in this process (testkit's `runHere`) or in a child (`startCli`), against a
 * scripted model served on 127.0.0.1 that the test holds: it answers from a list of steps, or from
 * a brain given the request. The helpers that read what a request carried are s12's.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageCreateParams } from "@anthropic-ai/sdk/resources/messages";
import { REPO_ROOT } from "@harness/cli";
import { ScriptedModel, type ScriptStep, startScriptedServer, textReply } from "@harness/scripted-model";
import { type CliRunner, cliRunner } from "@harness/testkit";
import { afterEach } from "vitest";
import { main } from "../src/main.ts";

export {
  firstText,
  jsonResult,
  lastResults,
  newestSession,
  systemText,
  toolNames,
  toolResultText,
} from "../../s12-subagents/test/run-cli.ts";

/** The two example skills the chapter ships, as its Try it copies them. */
export const EXAMPLE_SKILLS = join(REPO_ROOT, "s13-skills", "skills");

/** The chapter's runner, and a server whose model answers from `steps` in order, or from `brain`. */
export function s13Runner(): CliRunner & {
  serve(
    answer: ScriptStep[] | ((request: MessageCreateParams) => ScriptStep),
  ): Promise<{ model: ScriptedModel; env: NodeJS.ProcessEnv }>;
} {
  const runner = cliRunner("s13-skills", { main });
  const servers: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });
  return {
    ...runner,
    async serve(answer) {
      const steps = Array.isArray(answer) ? [...answer] : [];
      const model = new ScriptedModel({
        brain: Array.isArray(answer) ? () => steps.shift() ?? textReply("(no step left)") : answer,
      });
      const server = await startScriptedServer(model);
      servers.push(server);
      return { model, env: runner.cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url }) };
    },
  };
}

/** The Messages API requests the model was sent, in order. */
export function sent(model: ScriptedModel): MessageCreateParams[] {
  return model.requests.filter((r) => r.api === "messages").map((r) => r.body);
}

/** A SKILL.md's text. */
export function skillFile(name: string, description: string, body: string, more = ""): string {
  return `---\nname: ${name}\ndescription: ${description}\n${more}---\n${body}\n`;
}

/** Write skills (`name` → SKILL.md text) under `root` (a project's `.harness/skills` or a home's `skills`). */
export function writeSkills(root: string, skills: Record<string, string>): void {
  for (const [name, text] of Object.entries(skills)) {
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, "SKILL.md"), text);
  }
}

/** Copy the chapter's example skills into the project in `cwd`. */
export function copyExampleSkills(cwd: string): void {
  cpSync(EXAMPLE_SKILLS, join(cwd, ".harness", "skills"), { recursive: true });
}
