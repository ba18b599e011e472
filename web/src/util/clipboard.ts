// Copy text to the clipboard. navigator.clipboard needs a secure context (https or localhost);
// on plain HTTP over a LAN it is missing, so the text is copied from a selected, off-screen
// textarea instead, and if the browser refuses that too, the source element is left selected
// for the user to copy with the keyboard.

export type CopyOutcome = "copied" | "selected" | "failed";

export async function copyText(text: string, source?: Element | null): Promise<CopyOutcome> {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return "copied";
    } catch {
      // denied: fall back to a selection
    }
  }
  if (copyViaSelection(text)) return "copied";
  if (source && selectContents(source)) return "selected";
  return "failed";
}

function copyViaSelection(text: string): boolean {
  const active = document.activeElement as HTMLElement | null;
  const area = document.createElement("textarea");
  area.value = text;
  area.readOnly = true;
  area.className = "copy-buffer";
  area.setAttribute("aria-hidden", "true");
  area.tabIndex = -1;
  document.body.append(area);
  area.select();
  let ok = false;
  try {
    ok = document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  active?.focus({ preventScroll: true });
  return ok;
}

function selectContents(el: Element): boolean {
  const sel = window.getSelection();
  if (!sel) return false;
  const range = document.createRange();
  range.selectNodeContents(el);
  sel.removeAllRanges();
  sel.addRange(range);
  return true;
}
