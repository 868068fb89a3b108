/**
 * The course site: one typedoc run over `shared` and every `sNN-*` chapter, found at build time.
 *
 * What each page is:
 * - the home page is docs/index.md, the course home; the other docs/ pages, English and Chinese,
 *   are project documents (typedoc.json lists them);
 * - each package's page is its README.md followed by its API reference; its README.zh.md is a
 *   document inside it (packageOptions.projectDocuments);
 * - a relative link to a markdown file the site includes becomes a link to its page, so the same
 *   links work on GitHub and in the site;
 * - ```mermaid blocks are drawn as inline SVG at build time (see render-mermaid.ts).
 *
 * The options that do not change live in typedoc.json at the root; this file adds what is found or
 * computed: the packages, page titles, module names, and the mermaid renderer.
 */
import { join } from "node:path";
import {
  Application,
  Converter,
  type DocumentReflection,
  KindRouter,
  type Logger,
  LogLevel,
  MarkdownEvent,
  PackageJsonReader,
  type Reflection,
  ReflectionKind,
  TSConfigReader,
  TypeDocReader,
} from "typedoc";
import { findChapters, folderOf, REPO_ROOT } from "./find-chapters.ts";
import { renderMermaid } from "./render-mermaid.ts";

/** How to build the site. */
export interface BuildSiteOptions {
  /** Where the site is written; emptied first. */
  out: string;
  /** The repository root (default: this repository). */
  root?: string;
  /** Warnings fail the build, as in CI (default true). */
  strict?: boolean;
  /** Print typedoc's messages as they come (default true). */
  print?: boolean;
}

/** What a build did. */
export interface SiteBuild {
  /** True when the site was written and, if strict, nothing was warned about. */
  ok: boolean;
  /** Where the site is; its home page is `index.html`. */
  out: string;
  /** The package folders documented, `shared` first, then the chapters in order. */
  packages: string[];
  /** Every warning typedoc gave (broken links, undocumented exports, diagrams that did not draw). */
  warnings: string[];
  /** Every error typedoc gave. */
  errors: string[];
}

/** Build the site. Never throws for a problem in the docs: it is in `warnings` or `errors`. */
export async function buildSite(options: BuildSiteOptions): Promise<SiteBuild> {
  const root = options.root ?? REPO_ROOT;
  const strict = options.strict ?? true;
  const packages = ["shared", ...findChapters(root).map((chapter) => chapter.folder)];

  const app = await Application.bootstrapWithPlugins(
    {
      options: join(root, "typedoc.json"),
      entryPoints: packages.map((folder) => join(root, folder)),
      out: options.out,
      treatWarningsAsErrors: strict,
    },
    [new TypeDocReader(), new PackageJsonReader(), new TSConfigReader()],
  );
  const logger = app.logger;
  const messages = recordMessages(logger, options.print ?? true);

  // a document's title is its first heading, so the files need no front matter (GitHub shows it);
  // its page keeps the name of its file (documents/s01-agent-loop.README.zh.html)
  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, reflection: DocumentReflection) => {
    reflection.frontmatter[FILE_NAME] = reflection.name;
    reflection.name = firstHeading(reflection) ?? reflection.name;
  });
  app.renderer.defineRouter("course", CourseRouter);
  app.options.setValue("router", "course");

  let page = "";
  app.renderer.on(
    MarkdownEvent.PARSE,
    (event) => {
      page = event.page?.url ?? "";
    },
    100,
  );
  // a link to the home page is "../" from a page in a folder, which opens a directory listing
  // from file://: name index.html (after typedoc has turned markdown links into page links)
  app.renderer.on(
    MarkdownEvent.PARSE,
    (event) => {
      event.parsedText = event.parsedText.replace(/href="((?:\.\.\/)+|\.\/)"/g, 'href="$1index.html"');
    },
    -100,
  );
  app.options.setValue("markdownItLoader", (parser: MarkdownIt) =>
    drawMermaid(parser, (message) => logger.warn(`${page}: a mermaid diagram did not draw: ${message}`)),
  );

  const result = (ok: boolean): SiteBuild => ({
    ok: ok && !logger.hasErrors() && !(strict && logger.hasWarnings()),
    out: options.out,
    packages,
    warnings: messages.warnings,
    errors: messages.errors,
  });

  const project = await app.convert();
  if (!project) return result(false);
  for (const module of project.getChildrenByKind(ReflectionKind.Module)) {
    // the chapter's folder name, as every list in the course spells it
    module.name = folderOf(module.name);
  }
  app.validate(project);
  await app.generateOutputs(project);
  return result(true);
}

/** Where a document keeps the name of its file. */
const FILE_NAME = "fileName";

/** typedoc's default router, except that a document's page is named after its file, not its title. */
class CourseRouter extends KindRouter {
  protected override getIdealBaseName(reflection: Reflection): string {
    if (!reflection.isDocument()) return super.getIdealBaseName(reflection);
    const parts = [String(reflection.frontmatter[FILE_NAME] ?? reflection.name)];
    for (let parent = reflection.parent; parent && !parent.isProject(); parent = parent.parent) {
      parts.unshift(parent.isDocument() ? String(parent.frontmatter[FILE_NAME] ?? parent.name) : parent.name);
    }
    return `documents/${parts.map((part) => this.getUrlSafeName(part)).join(".")}`;
  }
}

/** The first `# heading` of a document, as plain text. */
function firstHeading(reflection: DocumentReflection): string | undefined {
  const text = reflection.content.map((part) => part.text).join("");
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1];
  return heading?.replace(/`([^`]*)`/g, "$1").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1");
}

/** The part of markdown-it this file uses (typedoc hands its parser over untyped). */
interface MarkdownIt {
  renderer: { rules: Record<string, FenceRule | undefined> };
}
type FenceRule = (tokens: { info: string; content: string }[], idx: number, ...rest: unknown[]) => string;

/** Render ```mermaid fences as a figure: the drawing, and the source folded under it. */
function drawMermaid(parser: MarkdownIt, warn: (message: string) => void): void {
  const fence = parser.renderer.rules.fence;
  if (!fence) throw new Error("markdown-it has no fence rule to extend");
  parser.renderer.rules.fence = (tokens, idx, ...rest) => {
    const token = tokens[idx];
    const code = fence(tokens, idx, ...rest);
    if (token.info.trim() !== "mermaid") return code;
    let svg: string;
    try {
      svg = renderMermaid(token.content);
    } catch (error) {
      warn(`${(error as Error).message}\n${token.content}`);
      return code;
    }
    return `<figure class="mermaid-diagram">${svg}<details><summary>Mermaid source</summary>${code}</details></figure>\n`;
  };
}

/** Keep every warning and error the logger is given, without colour codes; print only if asked. */
function recordMessages(logger: Logger, print: boolean): { warnings: string[]; errors: string[] } {
  const kept = { warnings: [] as string[], errors: [] as string[] };
  const log = logger.log.bind(logger);
  logger.log = (message, level) => {
    const plain = message.replace(/\x1b\[[0-9;]*m/g, "");
    if (level === LogLevel.Warn) kept.warnings.push(plain);
    if (level === LogLevel.Error) kept.errors.push(plain);
    log(message, level);
  };
  if (!print) logger.level = LogLevel.None;
  return kept;
}
