/**
 * A small deny list of commands that destroy a machine.
 *
 * This is not a security boundary. A model (or a prompt injected into what it reads) can write
 * the same thing a hundred other ways: `find / -delete`, a script file, base64. It catches the
 * obvious accident and nothing more; isolation (a container, a VM, a separate user) and the
 * permission prompts of a later chapter are what actually protect a machine.
 */

const DENIED: ReadonlyArray<readonly [RegExp, string]> = [
  [/\brm\s+(?:-\S+\s+)*(?:\/|\/\*|~|~\/|\$HOME\/?)(?=\s|$|[;&|)])/, "rm of / or the home directory"],
  [/--no-preserve-root\b/, "rm --no-preserve-root"],
  // each word counts only where it is run as a command: `grep reboot` and `echo shutdown` run
  [/(?:^|[;&|({`\n]|\b(?:sudo|exec|nohup|then|do|else)\s)\s*mkfs(?:\.\w+)?\b/, "mkfs (formats a file system)"],
  [/(?:^|[;&|({`\n]|\b(?:sudo|exec|nohup|then|do|else)\s)\s*(?:shutdown|reboot|halt|poweroff)\b/, "shutdown or reboot"],
  [/\bsystemctl\s+(?:poweroff|reboot|halt|kexec)\b/, "shutdown or reboot"],
  [/(?:^|[;&|({`\n]|\b(?:sudo|exec|nohup|then|do|else)\s)\s*init\s+[06]\b/, "shutdown or reboot"],
  [/:\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:/, "a fork bomb"],
  [/(?:>|\bof=)\s*\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|mapper\/)/, "a write to a raw disk device"],
];

/**
 * Why a command is refused, or `null` when the deny list has nothing against it.
 * Contract: matching is on the command text only; it is a guard against accidents.
 */
export function deniedReason(command: string): string | null {
  for (const [pattern, what] of DENIED) {
    if (pattern.test(command)) return what;
  }
  return null;
}
