// What Settings → Plugins says a plugin bundles, worked out from the server's `PluginInfo`.
import type { PluginInfo } from "../api/types";

/** One thing a plugin bundles: what it is, in words, and the names that go with it (as code). */
export interface BundlePart {
  kind: "skills" | "agents" | "commands" | "hooks" | "mcp" | "websearch";
  text: string;
  names: string[];
}

/**
 * What the plugin bundles, in the order its manifest's parts are documented: skills, agents,
 * slash commands, hooks, its MCP servers by name, and the MCP tool it serves web search with.
 * Empty: nothing this server uses.
 */
export function pluginBundle(p: PluginInfo): BundlePart[] {
  const parts: BundlePart[] = [];
  if (p.skills) parts.push({ kind: "skills", text: "skills", names: [] });
  if (p.agents) parts.push({ kind: "agents", text: "agents", names: [] });
  if (p.commands) parts.push({ kind: "commands", text: "slash commands", names: [] });
  if (p.hooks) parts.push({ kind: "hooks", text: "hooks", names: [] });
  if (p.mcp_servers.length > 0) {
    parts.push({ kind: "mcp", text: p.mcp_servers.length === 1 ? "MCP server" : "MCP servers", names: [...p.mcp_servers] });
  }
  if (p.websearch) parts.push({ kind: "websearch", text: "serves web search via", names: [p.websearch] });
  return parts;
}
