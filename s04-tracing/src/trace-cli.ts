/**
 * The tracer: `pnpm trace list | show <id> | view [id] | export <id>`, reading the traces that
 * `--trace` wrote (in .traces/ under the directory pnpm was started from, or HARNESS_TRACE_DIR,
 * or --dir).
 */
import { realpathSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { formatList, formatShow } from "./format-trace.ts";
import { listTraces, readTrace, tracePath } from "./read-trace.ts";
import { renderTraceHtml } from "./render-html.ts";
import { toOtlp } from "./to-otlp.ts";
import { traceDir } from "./trace-writer.ts";

const USAGE = `trace: read the traces that pnpm s04 --trace wrote

usage: pnpm trace list                 every trace, newest first
       pnpm trace show <id>            a timeline of one trace in the terminal
       pnpm trace view [id]            write a self-contained HTML viewer (default: the newest trace)
       pnpm trace export <id>          write the trace as OpenTelemetry spans (OTLP/JSON)

options: --dir DIR    where traces are (default: HARNESS_TRACE_DIR, else .traces in the current directory)
         --out FILE   where view/export write (default: beside the trace)`;

/** The streams and environment the tracer uses (tests pass their own). */
export interface TraceCliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** Run the tracer; returns the exit status. Errors are one line on stderr. */
export function runTraceCli(
  argv: string[],
  io: TraceCliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
): number {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { dir: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
    const [command, id] = positionals;
    const cwd = io.env.INIT_CWD ?? process.cwd();
    const dir = values.dir ? resolve(cwd, values.dir) : traceDir(cwd, io.env);
    const say = (text: string) => io.stdout.write(`${text}\n`);
    if (values.help) {
      say(USAGE);
      return 0;
    }
    if (!command) {
      io.stderr.write(`${USAGE}\n`); // asked for nothing: the usage is the error
      return 1;
    }
    if (command === "list") {
      say(formatList(listTraces(dir)));
      return 0;
    }
    if (command === "show") {
      if (!id) throw new Error("show needs a trace id (pnpm trace list shows them)");
      say(formatShow(readTrace(tracePath(dir, id))));
      return 0;
    }
    if (command === "view") {
      const chosen = id ?? listTraces(dir)[0]?.id;
      if (!chosen) throw new Error(`no traces in ${dir}`);
      const out = values.out ? resolve(cwd, values.out) : join(dir, `${chosen}.html`);
      writeFileSync(out, renderTraceHtml(readTrace(tracePath(dir, chosen))));
      say(`wrote ${out}\nopen it in a browser: file://${out}`);
      return 0;
    }
    if (command === "export") {
      if (!id) throw new Error("export needs a trace id (pnpm trace list shows them)");
      const out = values.out ? resolve(cwd, values.out) : join(dir, `${id}.otlp.json`);
      writeFileSync(out, `${JSON.stringify(toOtlp(readTrace(tracePath(dir, id))), null, 2)}\n`);
      say(`wrote ${out} (OTLP/JSON; POST it to a collector's /v1/traces)`);
      return 0;
    }
    throw new Error(`unknown command "${command}" (list, show, view, export)`);
  } catch (error) {
    io.stderr.write(`trace: error: ${(error as Error).message.split("\n")[0]}\n`);
    if (io.env.DEBUG) io.stderr.write(`${(error as Error).stack}\n`);
    return 1;
  }
}

// run only as the entry point (compared as real paths: a URL escapes spaces, a link hides the file)
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exit(runTraceCli(process.argv.slice(2)));
}
