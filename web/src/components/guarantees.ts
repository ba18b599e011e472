// The sandbox's guarantees as the Permissions panel lists them: a short name for each id the
// server sends (an id it does not know yet still shows, spelt out), and the ones that do not
// hold first, since those are what the user has to know about this server.
import type { SandboxGuarantee } from "../api/types";

const NAMES: Record<string, string> = {
  home_allow_list: "HOME allow-list",
  git_control_files_read_only: "Git control files read-only",
  server_out_of_reach: "Server out of reach",
  no_capabilities: "No capabilities",
  no_set_uid: "No set-user-ID",
  network_deny_all: "Network deny blocks everything",
  full_mode: "Full mode",
};

/** A guarantee's name as shown: `home_allow_list` → "HOME allow-list"; an unknown id spelt out. */
export function guaranteeName(id: string): string {
  const known = NAMES[id];
  if (known) return known;
  const words = id.replace(/_/g, " ").trim();
  return words ? words[0].toUpperCase() + words.slice(1) : id;
}

/** The guarantees that do not hold first, each group in the server's order. */
export function orderGuarantees(list: readonly SandboxGuarantee[]): SandboxGuarantee[] {
  return [...list.filter((g) => !g.holds), ...list.filter((g) => g.holds)];
}
