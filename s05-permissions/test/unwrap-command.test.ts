import { describe, expect, it } from "vitest";
import { literalWord } from "../src/shell/read-word.ts";
import { unwrapCommand } from "../src/shell/unwrap-command.ts";

function unwrap(line: string) {
  const result = unwrapCommand(line.split(" ").map(literalWord));
  return {
    layers: result.layers.map((layer) => layer.map((w) => w.value).join(" ")),
    allowLayer: result.allowLayer,
    scripts: result.scripts,
  };
}

describe("unwrapCommand", () => {
  it("peels transparent wrappers, their options and their values", () => {
    expect(unwrap("timeout -k 2 10 nice -n 5 command -p rm -rf x")).toEqual({
      layers: [
        "timeout -k 2 10 nice -n 5 command -p rm -rf x",
        "nice -n 5 command -p rm -rf x",
        "command -p rm -rf x",
        "rm -rf x",
      ],
      allowLayer: 3,
      scripts: [],
    });
    expect(unwrap("xargs -0 -n 1 -I {} rm {}").layers.at(-1)).toBe("rm {}");
    expect(unwrap("env -i A=1 B=2 -- rm x").layers.at(-1)).toBe("rm x");
    expect(unwrap("stdbuf -oL grep x").layers.at(-1)).toBe("grep x");
  });

  it("keeps the allow layer at sudo, which changes who runs the command", () => {
    expect(unwrap("sudo -u root rm x")).toMatchObject({ layers: ["sudo -u root rm x", "rm x"], allowLayer: 0 });
  });

  it("leaves a wrapper with nothing to run as the program", () => {
    expect(unwrap("xargs")).toMatchObject({ layers: ["xargs"], allowLayer: 0 });
    expect(unwrap("env")).toMatchObject({ layers: ["env"], allowLayer: 0 });
  });

  it("hands the scripts of shells, eval, watch and env -S to the parser", () => {
    expect(unwrap("bash -lc ls")).toMatchObject({ scripts: ["ls"], allowLayer: null });
    expect(unwrap("eval rm x")).toMatchObject({ scripts: ["rm x"], allowLayer: null });
    expect(unwrap("watch -n 1 rm x")).toMatchObject({ scripts: ["rm x"] });
    expect(unwrap("env -S rm x")).toMatchObject({ scripts: ["rm x"] });
  });

  it("leaves a shell running a script file to the rule for the shell", () => {
    expect(unwrap("bash deploy.sh")).toMatchObject({ layers: ["bash deploy.sh"], allowLayer: 0, scripts: [] });
  });
});
