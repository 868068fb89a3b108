/**
 * What one exercise's test run showed, judged against what the exercise says it shows. The run is
 * the chapter's vitest with a JSON report; "fail" means at least one test failed, which is not the
 * same as vitest failing to start (a change that does not parse fails every test file before any
 * test runs: that proves nothing about the test the exercise names).
 */

/** The part of vitest's JSON report this reads. */
export interface VitestReport {
  numFailedTests: number;
  numPassedTests: number;
  testResults: { name: string; status: string; message?: string }[];
}

/** How a test run ended: its exit status and its report (undefined when none was written). */
export interface TestRun {
  /** The exit status, or null when the run was killed (a timeout). */
  exitCode: number | null;
  report: VitestReport | undefined;
}

/** Whether the run showed what the exercise says, and a few words on what it showed. */
export interface ExerciseOutcome {
  ok: boolean;
  summary: string;
}

/**
 * Judge a run. `fail` holds when vitest exits non-zero with at least one failed test and no test
 * file that failed before its tests ran; `pass` holds when it exits 0 having run at least one test.
 */
export function exerciseOutcome(run: TestRun, expected: "fail" | "pass"): ExerciseOutcome {
  const { exitCode, report } = run;
  if (exitCode === null) return { ok: false, summary: "the test run was killed (it ran past its time limit)" };
  if (!report) return { ok: false, summary: `vitest exited ${exitCode} without a report: it did not start` };
  const broken = report.testResults.find((file) => file.status === "failed" && (file.message ?? "").trim() !== "");
  const counts = `${report.numFailedTests} failed, ${report.numPassedTests} passed`;
  if (broken) {
    const why = firstLine(broken.message ?? "");
    return { ok: false, summary: `a test file failed before its tests ran (${why}); ${counts}` };
  }
  if (expected === "fail") {
    if (exitCode !== 0 && report.numFailedTests > 0) return { ok: true, summary: `red as expected: ${counts}` };
    return { ok: false, summary: `expected the test to fail, but vitest exited ${exitCode}: ${counts}` };
  }
  if (exitCode === 0 && report.numPassedTests > 0) return { ok: true, summary: `green as expected: ${counts}` };
  if (exitCode === 0) return { ok: false, summary: "expected the test to pass, but no test ran" };
  return { ok: false, summary: `expected the test to pass, but vitest exited ${exitCode}: ${counts}` };
}

/** The first two lines of a message that say something, on one line, without colour codes. */
function firstLine(message: string): string {
  const lines = message
    .replace(/\x1b\[[0-9;]*m/g, "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  return lines.slice(0, 2).join(" ") || "no message";
}
