/** The chapter's tools, in the order the model sees them. */
import { bashTool } from "./bash.ts";
import { editFileTool } from "./edit-file.ts";
import { globTool } from "./glob.ts";
import { grepTool } from "./grep.ts";
import { readFileTool } from "./read-file.ts";
import { writeFileTool } from "./write-file.ts";

export {
  checkInput,
  type FromSchema,
  type ObjectSchema,
  type PropertySchema,
  type PropertyValue,
  type RequiredKeys,
  schemaProblems,
  zodProblems,
} from "./check-input.ts";
export { compilePattern, type LineMatcher, type Search, type SearchOptions, searchFiles } from "./grep.ts";
export { loadZod, type Zod } from "./load-zod.ts";
export { MAX_PROJECT_FILE_BYTES, readProjectFile } from "./open-regular-file.ts";
export { type Resolved, resolveInWorkdir } from "./resolve-in-workdir.ts";
export { bashTool, editFileTool, globTool, grepTool, readFileTool, writeFileTool };

/** Every tool of this chapter. */
export const ALL_TOOLS = [bashTool, readFileTool, writeFileTool, editFileTool, globTool, grepTool];
