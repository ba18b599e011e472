import { useState } from "preact/hooks";
import type { ImagePart, KeyValuePart, Part, TablePart, TreeNode, TreePart } from "../api/types";
import { VisibleText } from "./VisibleText";
import "../parts.css";

// Display parts of a tool result that MCP tools produce: an image, a table, key–value pairs and a
// tree. Everything the tool wrote is rendered as text nodes; the image goes through a `data:` URL
// (the app's CSP allows `img-src data:`) and only for the raster types the server passes on.

type DisplayPart = ImagePart | TablePart | KeyValuePart | TreePart;

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);
/** Tree levels shown open at first (the rest are folded). */
const OPEN_LEVELS = 2;

function isDisplayPart(p: Part): p is DisplayPart {
  return p.type === "image" || p.type === "table" || p.type === "key_value" || p.type === "tree";
}

/** The parts of a result this component shows (none: the card shows only the text). */
export function displayParts(parts: readonly Part[]): DisplayPart[] {
  return parts.filter(isDisplayPart);
}

/** Decoded size of base64 data, in bytes. */
function base64Bytes(data: string): number {
  const len = data.replace(/\s/g, "").length;
  const pad = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((len * 3) / 4) - pad);
}

function ImageView({ part }: { part: ImagePart }) {
  const [failed, setFailed] = useState(false);
  const shown = IMAGE_TYPES.has(part.mime_type) && !failed;
  if (!shown) {
    return (
      <p class="part part-note" data-part="image">
        image ({part.mime_type}, {base64Bytes(part.data)} bytes)
        {failed ? ": it could not be shown" : ""}
      </p>
    );
  }
  return (
    <div class="part part-image" data-part="image">
      <img
        src={`data:${part.mime_type};base64,${part.data}`}
        alt={`Image from the tool (${part.mime_type})`}
        decoding="async"
        onError={() => setFailed(true)}
      />
    </div>
  );
}

function TableView({ part }: { part: TablePart }) {
  const width = part.columns.length;
  return (
    <div class="part" data-part="table">
      <div
        class="part-scroll"
        role="region"
        aria-label={`Table from the tool, ${part.rows.length} rows`}
        tabIndex={0}
      >
        <table class="part-table">
          <thead>
            <tr>
              {part.columns.map((c, i) => (
                <th key={i} scope="col">
                  {c.trim() ? <VisibleText text={c} /> : <span class="visually-hidden">Column {i + 1}</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {part.rows.map((row, r) => (
              <tr key={r}>
                {Array.from({ length: Math.max(width, row.length) }, (_, i) => (
                  <td key={i}>
                    <VisibleText text={row[i] ?? ""} />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {part.truncated && <p class="part-note">more rows not shown</p>}
    </div>
  );
}

function KeyValueView({ part }: { part: KeyValuePart }) {
  return (
    <dl class="part part-kv" data-part="key_value">
      {part.entries.map((e, i) => (
        <div key={i} class="part-kv-row">
          <dt>
            <VisibleText text={e.key} />
          </dt>
          <dd>
            <VisibleText text={e.value} newlines />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function TreeLabel({ node }: { node: TreeNode }) {
  return (
    <>
      <span class="tree-label">
        <VisibleText text={node.label} />
      </span>
      {node.meta != null && node.meta !== "" && (
        <span class="tree-meta">
          <VisibleText text={node.meta} />
        </span>
      )}
    </>
  );
}

function TreeBranch({ nodes, depth }: { nodes: readonly TreeNode[]; depth: number }) {
  return (
    <ul class="part-tree-list">
      {nodes.map((n, i) => {
        const children = n.children ?? [];
        return (
          <li key={i}>
            {children.length > 0 ? (
              <details open={depth < OPEN_LEVELS}>
                <summary>
                  <TreeLabel node={n} />
                </summary>
                <TreeBranch nodes={children} depth={depth + 1} />
              </details>
            ) : (
              <div class="tree-leaf">
                <TreeLabel node={n} />
              </div>
            )}
          </li>
        );
      })}
    </ul>
  );
}

function TreeView({ part }: { part: TreePart }) {
  return (
    <div class="part part-tree" data-part="tree">
      <TreeBranch nodes={part.nodes} depth={0} />
    </div>
  );
}

function PartView({ part }: { part: DisplayPart }) {
  switch (part.type) {
    case "image":
      return <ImageView part={part} />;
    case "table":
      return <TableView part={part} />;
    case "key_value":
      return <KeyValueView part={part} />;
    case "tree":
      return <TreeView part={part} />;
  }
}

/** The image, table, key–value and tree parts of a tool result, in their order. */
export function ResultParts({ parts }: { parts: readonly DisplayPart[] }) {
  if (parts.length === 0) return null;
  return (
    <div class="result-parts">
      {parts.map((p, i) => (
        <PartView key={i} part={p} />
      ))}
    </div>
  );
}
