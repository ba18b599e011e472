import { describe, expect, it } from "vitest";
import type { PluginInfo } from "../api/types";
import { pluginBundle } from "./plugins";

const plugin = (over: Partial<PluginInfo> = {}): PluginInfo => ({
  name: "greeter",
  version: "1.0.0",
  description: "Greets.",
  enabled: false,
  root: "/home/u/.tradewind/plugins/greeter",
  skills: false,
  agents: false,
  commands: false,
  hooks: false,
  mcp_servers: [],
  websearch: null,
  problems: [],
  ...over,
});

const said = (p: PluginInfo) => pluginBundle(p).map((b) => [b.kind, b.text, b.names]);

describe("what a plugin bundles", () => {
  it("lists its parts in the manifest's order, its MCP servers by name", () => {
    expect(said(plugin({ skills: true, agents: true, commands: true, hooks: true, mcp_servers: ["greeter"] }))).toEqual([
      ["skills", "skills", []],
      ["agents", "agents", []],
      ["commands", "slash commands", []],
      ["hooks", "hooks", []],
      ["mcp", "MCP server", ["greeter"]],
    ]);
  });

  it("says the MCP tool it serves web search with", () => {
    expect(said(plugin({ mcp_servers: ["a", "b"], websearch: "b/search" }))).toEqual([
      ["mcp", "MCP servers", ["a", "b"]],
      ["websearch", "serves web search via", ["b/search"]],
    ]);
  });

  it("is empty when it bundles nothing this server uses", () => {
    expect(pluginBundle(plugin())).toEqual([]);
  });
});
