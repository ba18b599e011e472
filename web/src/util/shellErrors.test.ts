import { describe, expect, it } from "vitest";
import { missingPrograms, reachedFor } from "./shellErrors";

describe("missingPrograms", () => {
  it("reads the programs dash, bash and zsh could not find", () => {
    expect(missingPrograms("/bin/sh: 1: xyzzy: not found\n")).toEqual(["xyzzy"]);
    expect(missingPrograms("bash: line 1: rg: command not found\nbash: fd: command not found")).toEqual(["rg", "fd"]);
    expect(missingPrograms("zsh: command not found: jq")).toEqual(["jq"]);
  });

  it("leaves out a path (that may be hidden) and other errors", () => {
    expect(missingPrograms("/bin/sh: 1: /opt/tool/bin/x: not found")).toEqual([]);
    expect(missingPrograms("cat: /home/a/x: No such file or directory")).toEqual([]);
  });
});

describe("reachedFor", () => {
  it("drops the shell naming itself in its own message", () => {
    expect(reachedFor(["/bin/sh"], "/bin/sh: 1: xyzzy: not found\n")).toEqual([]);
  });

  it("keeps a path the output names as one it could not reach", () => {
    const out = "cat: /home/a/.config/x.toml: No such file or directory\n";
    expect(reachedFor(["/home/a/.config/x.toml"], out)).toEqual(["/home/a/.config/x.toml"]);
    const py = "/usr/bin/python3: can't open file '/home/a/run.py': [Errno 2] No such file or directory";
    expect(reachedFor(["/usr/bin/python3", "/home/a/run.py"], py)).toEqual(["/home/a/run.py"]);
  });

  it("keeps a path missing as a program given by its path", () => {
    expect(reachedFor(["/opt/tool/bin/x"], "/bin/sh: 1: /opt/tool/bin/x: not found")).toEqual(["/opt/tool/bin/x"]);
  });
});
