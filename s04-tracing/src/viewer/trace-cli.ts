/**
 * The tracer: `pnpm trace list | show <id> | view [id] | export <id>`, reading the traces that
 * `--trace` wrote for the project pnpm was started from (or --cwd's), where `traceDir` puts them:
 * HARNESS_TRACE_DIR, else the harness's data directory for that project. `--dir` names the
 * directory itself.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isProgram } from "@harness/cli";
import { traceDir } from "../trace-writer.ts";
import { formatList, formatShow } from "./format-trace.ts";
import { listTraces, readTrace, requestOf, tracePath } from "./read-trace.ts";
import { renderTraceHtml } from "./render-html.ts";
import { toOtlp } from "./to-otlp.ts";

const USAGE = `trace: read the traces that pnpm s04 --trace wrote

usage: pnpm trace list                   every trace of this project, newest first
       pnpm trace show <id>              a timeline of one trace in the terminal
       pnpm trace show <id> --request N  request #N of the trace in full, as sent (JSON)
       pnpm trace view [id]              write a self-contained HTML viewer (default: the newest trace)
       pnpm trace export <id>            write the trace as OpenTelemetry spans (OTLP/JSON)

options: --cwd DIR    the project whose traces to read (default: the directory pnpm was started from)
         --dir DIR    read the traces in DIR instead (default: HARNESS_TRACE_DIR, else the project's
                      traces in ~/.harness/projects/, or HARNESS_HOME/projects/)
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
      options: {
        cwd: { type: "string" },
        dir: { type: "string" },
        out: { type: "string" },
        request: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    const [command, id] = positionals;
    const here = io.env.INIT_CWD ?? process.cwd();
    const project = values.cwd ? resolve(here, values.cwd) : here;
    const dir = values.dir ? resolve(here, values.dir) : traceDir(project, io.env);
    const say = (text: string) => io.stdout.write(`${text}\n`);
    if (values.help) {
      say(USAGE);
      return 0;
    }
    if (!command) {
      io.stderr.write(`${USAGE}\n`); // asked for nothing: the usage is the error
      return 1;
    }
    if (values.request !== undefined && command !== "show") throw new Error("--request goes with show");
    if (command === "list") {
      say(formatList(listTraces(dir)));
      return 0;
    }
    if (command === "show") {
      if (!id) throw new Error("show needs a trace id (pnpm trace list shows them)");
      const trace = readTrace(tracePath(dir, id));
      if (values.request === undefined) {
        say(formatShow(trace));
        return 0;
      }
      const n = Number(values.request);
      const request = /^\d+$/.test(values.request) ? requestOf(trace, n) : undefined;
      if (!request)
        throw new Error(`trace ${id} has no request #${values.request} (pnpm trace show ${id} numbers them)`);
      say(JSON.stringify(request, null, 2));
      return 0;
    }
    if (command === "view") {
      const chosen = id ?? listTraces(dir)[0]?.id;
      if (!chosen) throw new Error(`no traces in ${dir}`);
      const out = values.out ? resolve(here, values.out) : join(dir, `${chosen}.html`);
      writeFileSync(out, renderTraceHtml(readTrace(tracePath(dir, chosen))));
      say(`wrote ${out}\nopen it in a browser: file://${out}`);
      return 0;
    }
    if (command === "export") {
      if (!id) throw new Error("export needs a trace id (pnpm trace list shows them)");
      const out = values.out ? resolve(here, values.out) : join(dir, `${id}.otlp.json`);
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
if (isProgram(import.meta.filename)) {
  process.exit(runTraceCli(process.argv.slice(2)));
}
