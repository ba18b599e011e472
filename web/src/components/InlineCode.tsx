import { VisibleText } from "./VisibleText";

/** Plain text in which `backtick spans` become inline code (nothing else is interpreted). */
export function InlineCode({ text }: { text: string }) {
  const pieces = text.split(/`([^`\n]+)`/);
  return (
    <>
      {pieces.map((p, i) =>
        i % 2 === 1 ? (
          <code key={i}>
            <VisibleText text={p} />
          </code>
        ) : (
          p && <VisibleText key={i} text={p} />
        ),
      )}
    </>
  );
}
