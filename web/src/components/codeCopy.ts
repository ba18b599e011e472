// Copy buttons on the code blocks of rendered Markdown. The HTML comes from the sanitizer, so the
// buttons are added to the DOM afterwards and their clicks handled by the container.
import { copyText } from "../util/clipboard";

const SAID = { copied: "Copied", selected: "Selected: press Ctrl+C", failed: "Copy failed" } as const;

/** Give every `pre.code` under `root` a Copy button (once). */
export function addCodeCopyButtons(root: HTMLElement): void {
  for (const pre of root.querySelectorAll<HTMLPreElement>("pre.code")) {
    if (pre.querySelector(":scope > .copy-btn")) continue;
    const b = document.createElement("button");
    b.type = "button";
    b.className = "copy-btn code-copy";
    b.textContent = "Copy";
    b.setAttribute("aria-label", "Copy code");
    pre.prepend(b);
  }
}

/** Handles a click on a code block's Copy button; true when it was one. */
export function onCodeCopyClick(e: MouseEvent): boolean {
  const b = (e.target as Element | null)?.closest?.(".code-copy") as HTMLButtonElement | null;
  if (!b) return false;
  e.preventDefault();
  const code = b.parentElement?.querySelector("code");
  if (!code) return true;
  void copyText(code.textContent ?? "", code).then((r) => {
    b.textContent = SAID[r];
    b.dataset.copied = r;
    setTimeout(() => {
      b.textContent = "Copy";
      delete b.dataset.copied;
    }, 2000);
  });
  return true;
}
