// A minimal MCP server over stdio (newline-delimited JSON-RPC) for the tests' own servers: it
// answers `initialize` and `tools/list` (`tools`: a list, or a function giving it), and hands each
// `tools/call` to `call(name, args, notify)`, which returns the result to send, or `undefined` to
// send nothing at all; `notify(method)` sends a notification first.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");

export function serve({ name, tools, call }) {
  const list = () => (typeof tools === "function" ? tools() : tools);
  const notify = (method) => send({ jsonrpc: "2.0", method });
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (!line.trim()) return;
    const msg = JSON.parse(line);
    if (msg.id === undefined) return; // notifications
    const reply = (result) => send({ jsonrpc: "2.0", id: msg.id, result });
    const fail = (code, message) => send({ jsonrpc: "2.0", id: msg.id, error: { code, message } });
    switch (msg.method) {
      case "initialize":
        reply({
          protocolVersion: msg.params.protocolVersion,
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name, version: "1.0.0" },
        });
        break;
      case "tools/list":
        reply({ tools: list() });
        break;
      case "tools/call": {
        if (!list().some((t) => t.name === msg.params.name)) {
          fail(-32602, `no tool ${msg.params.name}`);
          break;
        }
        const result = call(msg.params.name, msg.params.arguments ?? {}, notify);
        if (result !== undefined) reply(result);
        break;
      }
      default:
        fail(-32601, "method not found");
    }
  });
}
