// How diffs are laid out (unified, or old and new side by side), remembered in this browser: the
// tool cards' diffs and the session review share the choice.

export type DiffLayout = "unified" | "split";

const KEY = "tradewind.diffLayout";

export function storedLayout(): DiffLayout {
  try {
    return localStorage.getItem(KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}

export function storeLayout(layout: DiffLayout): void {
  try {
    localStorage.setItem(KEY, layout);
  } catch {
    // Storage refused (private mode, full): the choice holds for this page only.
  }
}
