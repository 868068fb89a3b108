/**
 * The mode the user picks: what happens to a call that no rule names. Rules come first; the mode
 * is the baseline under them.
 *
 * | mode              | reads | edits                            | bash and other tools |
 * | ----------------- | ----- | -------------------------------- | -------------------- |
 * | default           | run   | ask                              | ask                  |
 * | acceptEdits       | run   | run inside the working directory | ask                  |
 * | plan              | run   | refused: you are planning        | refused              |
 * | bypassPermissions | run   | run                              | run                  |
 *
 * Deny rules hold in every mode, bypassPermissions included. Plan mode refuses what is not a read
 * even when an allow rule names it (planning is a promise not to change anything), and
 * bypassPermissions skips ask rules (it runs everything a deny rule does not name).
 *
 * What the engine cannot prove (a piece of a shell line it cannot see through) asks in every mode
 * but plan, bypassPermissions included: no rule can be matched against it, so no deny rule could
 * stop it. It fails closed.
 */

/** The modes, in the order a user would loosen them. */
export const PERMISSION_MODES = ["default", "acceptEdits", "plan", "bypassPermissions"] as const;

/** A permission mode. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** What a part of a call is, for the mode's baseline. */
export type AccessKind =
  /** read_file, glob, grep, or a shell read such as `< file` */
  | "read"
  /** edit_file, write_file, or a shell redirection into a file */
  | "edit"
  /** a simple shell command, or a tool this engine does not know */
  | "run"
  /** a piece of a shell line the engine cannot prove harmless (eval of a variable, arithmetic on one) */
  | "unseen";

/** The baseline for a part no rule names: a behaviour and the sentence that explains it. */
export interface ModeBaseline {
  behavior: "allow" | "ask" | "deny";
  reason: string;
}

/** True when `value` names a mode. */
export function isPermissionMode(value: unknown): value is PermissionMode {
  return typeof value === "string" && (PERMISSION_MODES as readonly string[]).includes(value);
}

/**
 * What `mode` does with a part of `kind` that no rule names. `insideCwd` says whether an edit's
 * file is inside the working directory (acceptEdits runs only those).
 */
export function modeBaseline(mode: PermissionMode, kind: AccessKind, insideCwd = false): ModeBaseline {
  if (kind === "read") return { behavior: "allow", reason: `reads run in ${mode} mode` };
  switch (mode) {
    case "default":
      return { behavior: "ask", reason: `in default mode ${KIND_WORDS[kind]} asks` };
    case "acceptEdits":
      if (kind === "edit" && insideCwd) {
        return { behavior: "allow", reason: "acceptEdits mode runs edits inside the working directory" };
      }
      if (kind === "edit")
        return { behavior: "ask", reason: "acceptEdits mode asks for edits outside the working directory" };
      return { behavior: "ask", reason: `in acceptEdits mode ${KIND_WORDS[kind]} asks` };
    case "plan":
      return { behavior: "deny", reason: PLANNING };
    case "bypassPermissions":
      if (kind === "unseen") {
        return {
          behavior: "ask",
          reason:
            "bypassPermissions mode asks about what the parser cannot see through: no deny rule can be matched against it",
        };
      }
      return { behavior: "allow", reason: "bypassPermissions mode runs everything no deny rule names" };
  }
}

/** What a refused call tells the model in plan mode. */
export const PLANNING =
  "you are in plan mode: only read_file, glob and grep run. Read what you need, then write your plan as your answer; nothing is changed or run until the user leaves plan mode";

const KIND_WORDS: Record<Exclude<AccessKind, "read">, string> = {
  edit: "an edit",
  run: "a command",
  unseen: "what the parser cannot see through",
};
