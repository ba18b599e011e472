import { describe, expect, it } from "vitest";
import type { SandboxGuarantee } from "../api/types";
import { guaranteeName, orderGuarantees } from "./guarantees";

const g = (id: string, holds: boolean): SandboxGuarantee => ({ id, holds, detail: `${id} detail` });

describe("sandbox guarantees", () => {
  it("lists the ones that do not hold first, each group in the server's order", () => {
    const list = [g("home_allow_list", true), g("git_control_files_read_only", false), g("no_set_uid", true), g("full_mode", false)];
    expect(orderGuarantees(list).map((x) => x.id)).toEqual(["git_control_files_read_only", "full_mode", "home_allow_list", "no_set_uid"]);
    // The list it was given is left as it was.
    expect(list[0].id).toBe("home_allow_list");
  });

  it("keeps the server's order when every one holds", () => {
    const list = [g("a", true), g("b", true)];
    expect(orderGuarantees(list)).toEqual(list);
  });

  it("names each id the server sends, and spells out one it does not know yet", () => {
    for (const id of ["home_allow_list", "git_control_files_read_only", "server_out_of_reach", "no_capabilities", "no_set_uid", "network_deny_all", "full_mode"]) {
      expect(guaranteeName(id)).not.toContain("_");
    }
    expect(guaranteeName("full_mode")).toBe("Full mode");
    expect(guaranteeName("no_ptrace_of_peers")).toBe("No ptrace of peers");
  });
});
