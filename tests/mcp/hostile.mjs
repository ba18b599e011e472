// A hostile MCP server over stdio (newline-delimited JSON-RPC): it completes the handshake and
// lists two tools, then `flood` answers with a 50 MB line and `hang` never answers.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const tools = [
  { name: "flood", description: "Answers with 50 MB", inputSchema: { type: "object", properties: {} } },
  { name: "hang", description: "Never answers", inputSchema: { type: "object", properties: {} } },
];

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.id === undefined) return; // notifications
  switch (msg.method) {
    case "initialize":
      send({
        jsonrpc: "2.0",
        id: msg.id,
        result: {
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: {} },
          serverInfo: { name: "hostile", version: "1.0.0" },
        },
      });
      break;
    case "tools/list":
      send({ jsonrpc: "2.0", id: msg.id, result: { tools } });
      break;
    case "tools/call":
      if (msg.params.name === "flood") {
        send({
          jsonrpc: "2.0",
          id: msg.id,
          result: { content: [{ type: "text", text: "x".repeat(50 * 1024 * 1024) }] },
        });
      }
      break;
    default:
      send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "method not found" } });
  }
});
