/**
 * What offering skills costs (s13). First, bytes: the first request of s13's loop with no skill,
 * with `COUNT` skills offered (each one line in the skill tool's description), and with the same
 * skills' bodies put in the request instead (what a harness without progressive disclosure
 * sends). Each body is `BODY_BYTES` of instructions, a description `DESCRIPTION_BYTES`: sizes
 * like the example skills of the Agent Skills repository. Then time: discovering and validating
 * the `COUNT` folders (read, YAML parsed, checked), as the session's start does once.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ALL_TOOLS, type Tool, toolMap } from "@harness/s02-tool-dispatch";
import { sendStreamed } from "@harness/s03-streaming";
import { loadPermissionSettings, type PermissionSettings } from "@harness/s05-permissions";
import { agentLoop, discoverSkills, loadedText, Skills } from "@harness/s13-skills";
import { ScriptedModel, textReply } from "@harness/scripted-model";
import { type Figure, type Section, summarize } from "../section.ts";

/** How the skills scenario runs. */
export interface SkillsOptions {
  warmup: number;
  reps: number;
}

/** Skills offered. */
const COUNT = 100;
/** Bytes of one skill's instructions. */
const BODY_BYTES = 4_000;
/** Bytes of one skill's description. */
const DESCRIPTION_BYTES = 160;
const MODEL = "claude-sonnet-5-5";

/** Write `COUNT` skill folders under `root`. */
function writeSkills(root: string): void {
  for (let i = 1; i <= COUNT; i++) {
    const name = `skill-${i}`;
    const description = `Does task ${i} the team's way; use it when asked for task ${i}. `.padEnd(
      DESCRIPTION_BYTES,
      "x",
    );
    const body = `# Task ${i}\n\n${"1. A step of the procedure, with the command it runs.\n".repeat(BODY_BYTES / 54)}`;
    mkdirSync(join(root, name), { recursive: true });
    writeFileSync(join(root, name, "SKILL.md"), `---\nname: ${name}\ndescription: ${description}\n---\n${body}`);
  }
}

/** The bytes of the first request s13's loop sends with `tools` and `system`. */
async function firstRequestBytes(cwd: string, tools: Tool[], system?: string): Promise<number> {
  const model = new ScriptedModel({ brain: () => textReply("Done.") });
  await agentLoop(sendStreamed(model.client({ maxRetries: 0 }), 1), [{ role: "user", content: "Hello" }], {
    model: MODEL,
    cwd,
    tools: toolMap(tools),
    ...(system === undefined ? {} : { system }),
  });
  return JSON.stringify(model.requests[0].body).length;
}

/** Run the scenario. */
export async function skills(o: SkillsOptions): Promise<Section> {
  const root = mkdtempSync(join(tmpdir(), "bench-skills-"));
  const problems: string[] = [];
  try {
    const cwd = join(root, "project");
    const home = join(root, "home");
    writeSkills(join(cwd, ".harness", "skills"));
    const times: number[] = [];
    let found = discoverSkills(cwd, home);
    for (let rep = -o.warmup; rep < o.reps; rep++) {
      const started = performance.now();
      found = discoverSkills(cwd, home);
      if (rep >= 0) times.push(performance.now() - started);
    }
    if (found.skills.length !== COUNT || found.problems.length > 0) problems.push("not every skill was discovered");
    const settings = loadPermissionSettings(cwd, {}, { trusted: false }) as PermissionSettings;
    const tool = new Skills({ skills: found.skills, settings, projectTrusted: false }).tool();
    if (!tool) throw new Error("no skill tool with skills found");
    const none = await firstRequestBytes(cwd, ALL_TOOLS);
    const offered = await firstRequestBytes(cwd, [...ALL_TOOLS, tool]);
    const system = `You are a coding agent working in ${cwd}. Use the tools. Be brief.`;
    const inlined = await firstRequestBytes(
      cwd,
      ALL_TOOLS,
      [system, ...found.skills.map((s) => loadedText(s, undefined))].join("\n\n"),
    );
    const ms = summarize(times);
    const figures: Figure[] = [
      {
        label: `the first request, ${COUNT} skills offered ÷ none`,
        spread: summarize([offered / none]),
        unit: "x",
        detail: `${offered.toLocaleString("en")} against ${none.toLocaleString("en")} bytes (+${(offered - none).toLocaleString("en")}, ${Math.round((offered - none) / COUNT)} a skill)`,
      },
      {
        label: `the same ${COUNT} skills' bodies in the request ÷ offered`,
        spread: summarize([inlined / offered]),
        unit: "x",
        detail: `${inlined.toLocaleString("en")} against ${offered.toLocaleString("en")} bytes: what loading on use saves on every request`,
      },
      {
        label: `discovering and validating ${COUNT} skills`,
        spread: ms,
        unit: "ms",
        detail: `${((ms.median * 1000) / COUNT).toFixed(0)} µs a skill (median), once per session`,
      },
    ];
    return {
      title: "Skills (s13)",
      about:
        `${COUNT} skill folders (a ${DESCRIPTION_BYTES}-byte description, a ${BODY_BYTES.toLocaleString("en")}-byte body each) in a ` +
        "project: the first request of s13's loop with none, with them offered in the skill tool's description, and with " +
        `their bodies in the system prompt instead (one run each, deterministic); discovery timed over ${o.reps} repetitions ` +
        `(${o.warmup} warm-up).`,
      figures,
      notes: [
        "Every request carries the offer, cached after the first (s10): it is part of the prefix. The bodies come only " +
          "with a skill's use, once, into the history.",
      ],
      problems,
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
