import type { RefObject } from "preact";
import { useLayoutEffect, useRef } from "preact/hooks";

/** The boxes of a card that can scroll: capped text (a command, a file, an output) and a diff. */
const BOXES = "pre, .diff-scroll";
/** What this hook set on a box (space-separated attribute names), so it takes back only its own. */
const MARK = "data-scroll-focus";
const FOCUSABLE = "a[href], button, input, select, textarea, summary, [tabindex]";

/**
 * Every box under the returned ref's element that scrolls gets a stop in the tab order and a name
 * while it scrolls, so a keyboard can scroll it too (WCAG 2.1.1, axe's scrollable-region-focusable);
 * a box that fits stays out of the tab order. Boxes already reachable (focusable themselves, as
 * terminal output is, or holding something focusable) are left as they are. `fallback` names a box
 * nothing else names (a row's key, "Error", "Output", the diff's path).
 */
export function useScrollFocus<T extends HTMLElement>(fallback: string): RefObject<T | null> {
  const root = useRef<T>(null);
  const watched = useRef<{ observer: ResizeObserver; boxes: Set<HTMLElement> } | null>(null);
  // After every render: boxes come and go with the content, and a box that reaches its cap keeps
  // its size while its content grows on (the resize observer sees the rest).
  useLayoutEffect(() => {
    const el = root.current;
    if (!el) return;
    if (!watched.current) {
      const observer = new ResizeObserver((entries) => {
        for (const e of entries) mark(e.target as HTMLElement, fallback);
      });
      watched.current = { observer, boxes: new Set() };
    }
    const w = watched.current;
    for (const box of w.boxes) {
      if (!el.contains(box)) {
        w.observer.unobserve(box);
        w.boxes.delete(box);
      }
    }
    for (const box of el.querySelectorAll<HTMLElement>(BOXES)) {
      mark(box, fallback);
      if (!w.boxes.has(box)) {
        w.boxes.add(box);
        w.observer.observe(box);
      }
    }
  });
  useLayoutEffect(() => () => watched.current?.observer.disconnect(), []);
  return root;
}

function mark(box: HTMLElement, fallback: string): void {
  const own = box.getAttribute(MARK);
  if (own === null && (box.hasAttribute("tabindex") || box.querySelector(FOCUSABLE))) return;
  const style = getComputedStyle(box);
  const scrollable = /auto|scroll/.test(`${style.overflowX} ${style.overflowY}`);
  const scrolls = scrollable && (box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1);
  if (scrolls && own === null) {
    const set = ["tabindex"];
    box.tabIndex = 0;
    if (!box.hasAttribute("role")) {
      box.setAttribute("role", "group");
      set.push("role");
    }
    if (!box.hasAttribute("aria-label") && !box.hasAttribute("aria-labelledby")) {
      box.setAttribute("aria-label", labelOf(box, fallback));
      set.push("aria-label");
    }
    box.setAttribute(MARK, set.join(" "));
  } else if (!scrolls && own !== null) {
    for (const name of own.split(" ")) box.removeAttribute(name);
    box.removeAttribute(MARK);
  }
}

/** A box's name: its row's key (`command`, `content`), else what it shows, else `fallback`. */
function labelOf(box: HTMLElement, fallback: string): string {
  const key = box.closest(".kv")?.querySelector(":scope > .k")?.textContent?.trim();
  if (key) return key;
  if (box.matches(".tool-error")) return "Error";
  if (box.closest(".tool-output")) return "Output";
  if (box.matches(".diff-scroll")) {
    const path = box.closest(".diff")?.querySelector(".diff-path")?.textContent?.trim();
    return path ? `Changes to ${path}` : "Changes";
  }
  return fallback;
}
