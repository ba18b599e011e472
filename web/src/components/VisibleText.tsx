import { splitControls } from "../render/controls";

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
