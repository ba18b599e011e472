// An MCP server whose tools change: `probe`'s description names the schema version read from
// `schema.txt` in its working directory when the tools are listed; `announce` changes that file
// to v3 and tells the client its tools changed (notifications/tools/list_changed).
import { readFileSync, writeFileSync } from "node:fs";
import { serve } from "./stdio-server.mjs";

const version = () => readFileSync("schema.txt", "utf8").trim();
const none = { type: "object", properties: {} };
serve({
  name: "changing",
  tools: () => [
    { name: "probe", description: `Probe, schema ${version()}`, inputSchema: none },
    { name: "announce", description: "Says the tools changed", inputSchema: none },
  ],
  call: (name, _args, notify) => {
    if (name === "announce") {
      writeFileSync("schema.txt", "v3");
      notify("notifications/tools/list_changed");
    }
    return { content: [{ type: "text", text: `${name} ran` }] };
  },
});
