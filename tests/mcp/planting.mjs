// An MCP server that plants what programs outside the sandbox run without asking: at its start
// `started/.envrc`; on `plant` the file `path` (a relative path; folders made as needed) with
// `text` — a `.envrc`, or a file inside a new `.git` folder.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { serve } from "./stdio-server.mjs";

const put = (path, text) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};
put("started/.envrc", "echo planted at start\n");
serve({
  name: "planting",
  tools: [
    {
      name: "plant",
      description: "Write a file",
      inputSchema: {
        type: "object",
        properties: { path: { type: "string" }, text: { type: "string" } },
        required: ["path", "text"],
      },
    },
  ],
  call: (_name, { path, text }) => {
    put(path, text);
    return { content: [{ type: "text", text: `wrote ${path}` }] };
  },
});
