/**
 * The exercises of this chapter's text, as data that `pnpm test:exercises` checks: each makes one
 * change to the code and names the test it turns red (`expect: "fail"`) or leaves green
 * (`expect: "pass"`); exercise 1 is the one the reader builds (its `replace` is the stub, the
 * chapter's code the reference). Test infrastructure, not part of the chapter; the fields are
 * described in docs/README.md ("Exercises").
 */
export const exercises = [
  {
    // the build exercise: the stub keeps the lines in memory and writes them when the run ends (kill -9
    // mid-run then leaves nothing on disk); the reader writes each record before write returns
    id: 1,
    kind: "build",
    file: "src/trace-writer.ts",
    find: `  /**
   * Append one record as one line; it is on disk when this returns. A write that fails (a full
   * disk) leaves the file ending with its last whole line and throws one line saying so.
   */
  write(record: TraceRecord): void {
    const line = Buffer.from(\`\${redactLine(JSON.stringify(record), this.secrets)}\\n\`);
    this.fd ??= openSync(this.path, "a");
    appendWhole(this.fd, line, { what: \`the trace \${this.path}\`, kept: "every record before this one, whole" });
  }`,
    replace: `  /** Lines kept in memory until the run ends: one write per run instead of one per iteration. */
  private readonly buffered: Buffer[] = [];
  /** Append one record as one line, when the run ends. */
  write(record: TraceRecord): void {
    this.buffered.push(Buffer.from(\`\${redactLine(JSON.stringify(record), this.secrets)}\\n\`));
    if (record.type === "iteration") return;
    this.fd ??= openSync(this.path, "a");
    appendWhole(this.fd, Buffer.concat(this.buffered.splice(0)), { what: \`the trace \${this.path}\`, kept: "every record before this one, whole" });
  }`,
    test: "on disk before the next model call|killed with SIGKILL|trace file is open while a run writes",
    expect: "fail",
  },
  {
    // the iteration in progress written only when the run ends with an answer: every other exit loses it
    id: 2,
    file: "src/trace-recorder.ts",
    find: '      case "end":\n        this.writeOpen();',
    replace: '      case "end":\n        if (traced.result.stopReason === "final_answer") this.writeOpen();',
    test: "every completed iteration, then the run's end",
    expect: "fail",
  },
  {
    // every request written whole (no base): the lines grow with the history, the trace with its square
    id: 3,
    file: "src/trace-writer.ts",
    find: "request: requestDelta(sent, n, this.last)",
    replace: "request: requestDelta(sent, n)",
    test: "keeps each record about the same size as the history grows",
    expect: "fail",
  },
];
