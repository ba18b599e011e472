// A hostile MCP server over stdio: it completes the handshake and lists three tools: `flood`
// answers with a 50 MB line, `hang` never answers, and `ghost`'s input schema requires a
// property it does not define (no provider accepts it: the server skips it).
import { serve } from "./stdio-server.mjs";

const none = { type: "object", properties: {} };
serve({
  name: "hostile",
  tools: [
    { name: "flood", description: "Answers with 50 MB", inputSchema: none },
    { name: "hang", description: "Never answers", inputSchema: none },
    { name: "ghost", description: "A schema no provider takes", inputSchema: { type: "object", properties: {}, required: ["ghost"] } },
  ],
  call: (name) =>
    name === "flood" ? { content: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] } : undefined,
});
