/**
 * `pnpm run docs`: build the course site into docs-site/ (or the directory given with --out),
 * with warnings treated as errors, as CI runs it. Exits 1 when the build failed or warned.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildSite } from "./src/build-site.ts";
import { REPO_ROOT } from "./src/find-chapters.ts";

const { values } = parseArgs({ options: { out: { type: "string" } } });
const out = resolve(values.out ?? resolve(REPO_ROOT, "docs-site"));
const site = await buildSite({ out });
if (!site.ok) {
  console.error(`docs: the site build failed (${site.errors.length} errors, ${site.warnings.length} warnings)`);
  process.exit(1);
}
console.log(`docs: ${site.packages.join(", ")} → ${out}/index.html`);
