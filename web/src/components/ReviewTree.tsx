import type { ReviewFile } from "../api/types";
import type { TreeNode } from "../state/review";
import { visible } from "./VisibleText";

const STATUS = { added: ["A", "added"], modified: ["M", "modified"], deleted: ["D", "deleted"] } as const;

interface Props {
  nodes: readonly TreeNode[];
  /** The files marked viewed (their diff unchanged since). */
  viewed: ReadonlySet<string>;
  /** Open comments by file. */
  comments: ReadonlyMap<string, number>;
  onOpen: (path: string) => void;
}

/** A file's or folder's counts (plain calls, not components: a tree may hold hundreds). */
function stat(added: number, removed: number) {
  return (
    <span class="diff-stat rv-tree-stat">
      <span class="add">+{added}</span> <span class="del">−{removed}</span>
    </span>
  );
}

function status(file: ReviewFile) {
  const [letter, word] = STATUS[file.status];
  return (
    <>
      <span class={`rv-st rv-st-${file.status}`} aria-hidden="true">
        {letter}
      </span>
      <span class="visually-hidden">{word}, </span>
    </>
  );
}

/**
 * The files a review holds, in their folders (each folds, with its count of lines added and
 * removed): a file, chosen, opens in the list beside and comes into view.
 */
export function ReviewTree({ nodes, viewed, comments, onOpen }: Props) {
  return (
    <ul class="rv-tree-list">
      {nodes.map((n) =>
        n.kind === "folder" ? (
          <li key={`d:${n.path}`}>
            <details open>
              <summary class="rv-tree-folder" data-path={n.path}>
                <span class="rv-tree-name">{visible(n.name)}/</span>
                {stat(n.added, n.removed)}
              </summary>
              <ReviewTree nodes={n.children} viewed={viewed} comments={comments} onOpen={onOpen} />
            </details>
          </li>
        ) : (
          <li key={n.path}>
            <button type="button" class="rv-tree-file" data-path={n.path} onClick={() => onOpen(n.path)}>
              {status(n.file)}
              <span class="rv-tree-name">{visible(n.name)}</span>
              {(comments.get(n.path) ?? 0) > 0 && (
                <span class="rv-tree-comments" title="Open comments">
                  {comments.get(n.path)}
                  <span class="visually-hidden"> open comments</span>
                </span>
              )}
              {viewed.has(n.path) && (
                <span class="rv-tree-viewed" title="Viewed">
                  <span aria-hidden="true">✓</span>
                  <span class="visually-hidden">, viewed</span>
                </span>
              )}
              {stat(n.file.added, n.file.removed)}
            </button>
          </li>
        ),
      )}
    </ul>
  );
}
