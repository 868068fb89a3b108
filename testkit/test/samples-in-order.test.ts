import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cleanUpAfter } from "../src/clean-up-after.ts";
import { until } from "../src/cli-runner.ts";
import { runSamplesInOrder, shellBlocks } from "../src/samples-in-order.ts";

const slug = (dir: string) => dir.replaceAll("/", "-");

/** A repository root whose package.json has the script `s00`: a node line that prints what it is given. */
function repoRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "samples-root-"));
  cleanUpAfter(() => rmSync(root, { recursive: true, force: true }));
  const print = "console.log(process.argv.slice(1).join(' ')); console.log(process.env.HARNESS_HOME)";
  writeFileSync(join(root, "package.json"), JSON.stringify({ scripts: { s00: `node -e "${print}" --` } }));
  return root;
}

describe("runSamplesInOrder", () => {
  it("runs every sample in one directory and one home, each after the one before, a reset line included", () => {
    const runs = runSamplesInOrder({
      sampleDir: "/tmp/s00-sample",
      setup: "echo one > /tmp/s00-sample/a.txt\n",
      repoRoot: repoRoot(),
      projectSlug: slug,
      samples: [
        { command: "echo two >> /tmp/s00-sample/a.txt && mkdir -p ~/.harness/projects/-tmp-s00-sample", output: "" },
        { command: "cat /tmp/s00-sample/a.txt", output: "one\ntwo\n" },
        { command: "pnpm s00 --cwd /tmp/s00-sample", output: "--cwd /tmp/s00-sample\n~/.harness\n" },
        { command: "ls -d ~/.harness/projects/*", output: "~/.harness/projects/-tmp-s00-sample\n" },
        { command: "exit 3", output: "" },
      ],
    });
    for (const run of runs.slice(0, 4)) expect(run.printed, run.command).toEqual(run.shown);
    expect(runs.map((run) => run.status)).toEqual([0, 0, 0, 0, 3]);
  });

  it("starts the next sample once one in the background has printed its output, and kills what is left", async () => {
    const markers = mkdtempSync(join(tmpdir(), "samples-marker-"));
    cleanUpAfter(() => rmSync(markers, { recursive: true, force: true }));
    const marker = join(markers, "pid");
    const runs = runSamplesInOrder({
      sampleDir: "/tmp/s00-sample",
      setup: "",
      repoRoot: repoRoot(),
      projectSlug: slug,
      samples: [
        {
          command: `cd /tmp/s00-sample && (sleep 60 & echo $! > ${marker}; wait)`,
          output: "",
          background: true,
        },
        {
          command: `until [ -s ${marker} ]; do sleep 0.05; done; echo started; kill -0 $(cat ${marker}) && echo alive`,
          output: "started\nalive\n",
        },
      ],
    });
    expect(runs[1].printed).toEqual(runs[1].shown);
    expect(runs[0].status).toBeNull();
    const sleeper = Number(readFileSync(marker, "utf8"));
    // killed (gone, or a zombie until init reaps it): its working directory was the sample's
    const state = () => {
      try {
        return readFileSync(`/proc/${sleeper}/stat`, "utf8").split(" ")[2];
      } catch {
        return "gone";
      }
    };
    await until("the sleeper to die", () => ["gone", "Z"].includes(state()));
  });

  it("shows the text's session ids for the real ones, and puts the real ones back in a later command", () => {
    const root = repoRoot();
    const runs = runSamplesInOrder({
      sampleDir: "/tmp/s00-sample",
      setup: "",
      repoRoot: root,
      projectSlug: slug,
      samples: [
        { command: "cat /proc/sys/kernel/random/uuid", output: "4f1b3c2a-8d6e-4a7f-9b1c-2e5d8f0a6b3c\n" },
        { command: "echo 4f1b3c2a", output: "4f1b3c2a\n" },
      ],
    });
    for (const run of runs) expect(run.printed, run.command).toEqual(run.shown);
  });
});

describe("shellBlocks", () => {
  it("gives every sh block in order, with the output block that follows it at once or none", () => {
    const markdown = [
      "```sh\nmkdir -p /tmp/x\n```",
      "Then:",
      "```sh\npnpm s00 hi\n```\n\n```text\n[turn 1]\nhello\n```",
      "```sh\npnpm s00 --json hi\n```\n\n```json\n{}\n```",
      "```sh\nls\n```\n\nprose\n\n```text\nnot its output\n```",
    ].join("\n\n");
    expect(shellBlocks(markdown)).toEqual([
      { command: "mkdir -p /tmp/x", output: "" },
      { command: "pnpm s00 hi", output: "[turn 1]\nhello\n" },
      { command: "pnpm s00 --json hi", output: "{}\n" },
      { command: "ls", output: "" },
    ]);
  });
});
