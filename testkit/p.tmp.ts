import { readFileSync } from "node:fs";
import { proseOf } from "@harness/testkit";

for (const f of process.argv.slice(2)) {
  const p = proseOf(readFileSync(f, "utf8"));
  const collapsed = p.replace(/[ \t]+/g, " ").replace(/\|[-: |]+\|\n/g, "");
  const noTables = p
    .split("\n")
    .filter((l) => !l.startsWith("|"))
    .join("\n");
  console.log(f, "raw:", p.length, "collapsed:", collapsed.length, "without tables:", noTables.length);
}
