// An MCP server over stdio (newline-delimited JSON-RPC) whose tools answer with structured content
// only, no text: `table` (columns and rows) and `tree` (nested nodes), the shapes the server turns
// into table and tree display parts, and `wide` (8 long columns, 501 rows: more than the 500 rows
// the server keeps, so its table part is marked truncated).
import { serve } from "./stdio-server.mjs";

const none = { type: "object", properties: {} };
const tools = [
  { name: "table", description: "Two files and their sizes, as a table", inputSchema: none, annotations: { readOnlyHint: true } },
  { name: "tree", description: "A source folder, as a tree", inputSchema: none, annotations: { readOnlyHint: true } },
  { name: "wide", description: "A wide, long table", inputSchema: none, annotations: { readOnlyHint: true } },
];
const wideColumns = Array.from({ length: 8 }, (_, c) => `column number ${c + 1}`);
const results = {
  table: { columns: ["name", "size"], rows: [["a.txt", "3"], ["b.txt", "5"]] },
  tree: { nodes: [{ label: "src", children: [{ label: "main.rs", meta: "2 KB" }] }] },
  wide: {
    columns: wideColumns,
    rows: Array.from({ length: 501 }, (_, r) => wideColumns.map((_, c) => `row ${r + 1} cell ${c + 1} value`)),
  },
};

serve({
  name: "shapes",
  tools,
  call: (name) => ({ content: [], structuredContent: results[name] }),
});
