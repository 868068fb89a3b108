/**
 * s08 through its CLI with a UserPromptSubmit hook that adds context to every prompt: a
 * compaction keeps the user's latest request word for word, never the hook's text in its place.
 * The model's replies are written out here, served on 127.0.0.1.
 */
import type { TextBlockParam } from "@anthropic-ai/sdk/resources/messages";
import { reply, ScriptedModel, startScriptedServer, textReply, toolUse } from "@harness/scripted-model";
import { cleanUpAfter, cliRunner } from "@harness/testkit";
import { describe, expect, it } from "vitest";
import { main } from "../src/main.ts";

const { cleanEnv, project, runHere } = cliRunner("s08-compaction", { main });

describe("pnpm s08: a hook's context and the user's words", () => {
  it("keeps the user's latest request word for word through /compact, not the hook's context", async () => {
    const hook = JSON.stringify({
      hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "the build uses pnpm" },
    });
    const cwd = project({
      ".harness/settings.local.json": JSON.stringify({
        hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: `echo '${hook}'` }] }] },
      }),
      "notes.md": "one\ntwo\n",
    });
    const model = new ScriptedModel({
      script: [
        reply([toolUse("read_file", { path: "notes.md" })]),
        textReply("notes.md has 2 lines."),
        textReply("## Task\n- notes.md was read: 2 lines"), // the summary
        textReply("You asked me to read notes.md."),
      ],
    });
    const server = await startScriptedServer(model);
    cleanUpAfter(() => server.close());
    const env = cleanEnv({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.url });
    const { code, stdout } = await runHere(
      ["--cwd", cwd],
      env,
      "Read notes.md and count its lines\n/compact\nWhat did I ask?\n",
    );
    expect(code).toBe(0);
    expect(stdout).toMatch(/context: \/compact: summarised/);
    // the request after the compaction opens with the summary, then what the user last asked
    const [opening] = model.requests.at(-1)?.body.messages ?? [];
    const texts = (opening.content as TextBlockParam[]).map((block) => block.text);
    expect(texts[0]).toMatch(/^The conversation so far was summarised/);
    expect(texts[1]).toBe("Read notes.md and count its lines");
    expect(model.pending).toBe(0);
  }, 60_000);
});
