// A hostile MCP server over stdio: it completes the handshake and lists two tools, then `flood`
// answers with a 50 MB line and `hang` never answers.
import { serve } from "./stdio-server.mjs";

const none = { type: "object", properties: {} };
serve({
  name: "hostile",
  tools: [
    { name: "flood", description: "Answers with 50 MB", inputSchema: none },
    { name: "hang", description: "Never answers", inputSchema: none },
  ],
  call: (name) =>
    name === "flood" ? { content: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] } : undefined,
});
