import { readFileSync } from "node:fs";
import { proseOf } from "@harness/testkit";

console.log(proseOf(readFileSync(process.argv[2], "utf8")).replace(/\n{3,}/g, "\n\n"));
