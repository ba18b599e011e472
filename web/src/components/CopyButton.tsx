import { useEffect, useState } from "preact/hooks";
import { type CopyOutcome, copyText } from "../util/clipboard";

const SAID: Record<CopyOutcome, string> = {
  copied: "Copied",
  selected: "Selected: press Ctrl+C",
  failed: "Copy failed",
};

/**
 * A small Copy button. `text` is read when clicked; `source` is the element to select when the
 * browser allows no programmatic copy at all.
 */
export function CopyButton({
  text,
  label = "Copy",
  source,
}: {
  text: () => string;
  label?: string;
  source?: () => Element | null;
}) {
  const [said, setSaid] = useState<CopyOutcome | null>(null);
  useEffect(() => {
    if (!said) return;
    const t = setTimeout(() => setSaid(null), 2000);
    return () => clearTimeout(t);
  }, [said]);
  return (
    <button
      type="button"
      class="copy-btn"
      aria-label={label}
      title={label}
      data-copied={said ?? undefined}
      onClick={() => void copyText(text(), source?.()).then(setSaid)}
    >
      {said ? SAID[said] : "Copy"}
      {said && (
        <span class="visually-hidden" role="status">
          {SAID[said]}
        </span>
      )}
    </button>
  );
}
