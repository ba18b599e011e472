import { describe, expect, it } from "vitest";
import { workspaceWarning } from "./workspaces";

const known = [
  { path: "/etc", warning: "/etc is a system folder (server)" },
  { path: "/home/ana/app", warning: null },
  { path: "/home/ana", warning: "/home/ana is your home folder itself (server)" },
];

describe("workspaceWarning", () => {
  it("uses the server's words for a folder it listed", () => {
    expect(workspaceWarning("/etc/", known, "/home/ana")).toBe("/etc is a system folder (server)");
    expect(workspaceWarning(" /home/ana ", known, "/home/ana")).toBe("/home/ana is your home folder itself (server)");
    expect(workspaceWarning("/home/ana/app", known, "/home/ana")).toBeNull();
  });

  it("warns for exactly a system folder or the home folder when typed", () => {
    for (const p of ["/", "//", "/usr", "/var/", "/bin", "/boot"]) expect(workspaceWarning(p, [], null)).toMatch(/system folder/);
    expect(workspaceWarning("/home/ana/", [], "/home/ana")).toMatch(/home folder itself/);
    for (const p of ["", "  ", "/etc/nginx", "/usr/local/src", "/home/ana/app", "/home"]) expect(workspaceWarning(p, [], "/home/ana")).toBeNull();
    expect(workspaceWarning("/home/ana", [], null)).toBeNull();
  });
});
