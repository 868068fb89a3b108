import { describe, expect, it } from "vitest";
import { deniedReason } from "../src/denied-command.ts";

// These commands are only matched, never run: the deny list is the one thing between them and
// the machine. run-bash.test.ts checks that runBash refuses them before it starts bash.
describe("deniedReason", () => {
  it.each([
    ["rm -rf /", "rm of / or the home directory"],
    ["rm -rf /*", "rm of / or the home directory"],
    ["rm -fr / ", "rm of / or the home directory"],
    ["rm -r -f /", "rm of / or the home directory"],
    ["sudo rm -rf /", "rm of / or the home directory"],
    ["rm -rf ~", "rm of / or the home directory"],
    ["rm -rf ~/", "rm of / or the home directory"],
    ["rm -rf $HOME", "rm of / or the home directory"],
    ["cd /tmp && rm -rf ~; echo done", "rm of / or the home directory"],
    ["rm -rf --no-preserve-root /", "rm of / or the home directory"],
    ["rm --no-preserve-root -r /srv", "rm --no-preserve-root"],
    ["mkfs /dev/sdb1", "mkfs (formats a file system)"],
    ["mkfs.ext4 /dev/sdb1", "mkfs (formats a file system)"],
    ["sudo mkfs.xfs /dev/nvme0n1", "mkfs (formats a file system)"],
    ["shutdown -h now", "shutdown or reboot"],
    ["sudo shutdown -r now", "shutdown or reboot"],
    ["reboot", "shutdown or reboot"],
    ["make && reboot", "shutdown or reboot"],
    ["echo bye; poweroff", "shutdown or reboot"],
    ["halt", "shutdown or reboot"],
    ["systemctl reboot", "shutdown or reboot"],
    ["if true; then reboot; fi", "shutdown or reboot"],
    ["{ shutdown now; }", "shutdown or reboot"],
    ["echo $(reboot)", "shutdown or reboot"],
    ["ls\nshutdown now", "shutdown or reboot"],
    ["sudo init 6", "shutdown or reboot"],
    ["nohup reboot &", "shutdown or reboot"],
    ["exec shutdown now", "shutdown or reboot"],
    ["init 0", "shutdown or reboot"],
    [":(){ :|:& };:", "a fork bomb"],
    [":() { : | : & } ; :", "a fork bomb"],
    ["dd if=/dev/zero of=/dev/sda bs=1M", "a write to a raw disk device"],
    ["dd if=x.img of=/dev/nvme0n1", "a write to a raw disk device"],
    ["echo x > /dev/sda", "a write to a raw disk device"],
    ["cat image >/dev/mmcblk0", "a write to a raw disk device"],
  ])("refuses %s", (command, reason) => {
    expect(deniedReason(command)).toBe(reason);
  });

  it.each([
    "rm -rf ./build",
    "rm -rf build/ dist/",
    "rm -rf /tmp/harness-test-dir",
    "rm -rf ~/projects/old",
    "rm notes~",
    "ls /",
    "ls -la ~",
    "echo shutdown is a word",
    "grep -rn reboot src/",
    'git commit -m "handle shutdown and reboot signals"',
    "man mkfs",
    "ls /sbin | grep mkfs",
    "git init",
    "git init 0",
    "echo init 0",
    "echo hi > /dev/null",
    "ls /dev/sda*",
    "dd if=/dev/sda of=disk.img",
    "echo ':' | wc -c",
  ])("lets %s run", (command) => {
    expect(deniedReason(command)).toBeNull();
  });
});
