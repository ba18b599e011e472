import { hasControls, splitControls } from "../render/controls";

/** Text with control / invisible characters shown as visible markers. */
export function VisibleText({ text, newlines = false }: { text: string; newlines?: boolean }) {
  const pieces = splitControls(text, newlines);
  return (
    <>
      {pieces.map((p, i) =>
        p.special ? (
          <mark key={i} class="ctrl" title="control or invisible character">
            {p.text}
          </mark>
        ) : (
          p.text
        ),
      )}
    </>
  );
}

/**
 * `text` as `VisibleText` shows it, without a component of its own when it has nothing to mark:
 * for lists of many short texts (a diff's lines, a file tree's names).
 */
export function visible(text: string) {
  return hasControls(text) ? <VisibleText text={text} /> : text;
}
