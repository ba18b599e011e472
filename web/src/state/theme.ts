// Light / dark / system theme. The choice is kept in localStorage; the resolved
// theme is written to <html data-theme> for CSS.
import { Observable } from "./observable";

export type ThemeChoice = "system" | "light" | "dark";

const KEY = "tradewind.theme";
const media = window.matchMedia("(prefers-color-scheme: dark)");

function read(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    if (v === "light" || v === "dark" || v === "system") return v;
  } catch {
    // storage may be disabled
  }
  return "system";
}

export const themeChoice = new Observable<ThemeChoice>(read());

function apply(): void {
  const c = themeChoice.get();
  const resolved = c === "system" ? (media.matches ? "dark" : "light") : c;
  document.documentElement.dataset.theme = c;
  document.documentElement.dataset.resolvedTheme = resolved;
}

export function initTheme(): void {
  apply();
  media.addEventListener("change", apply);
  themeChoice.subscribe(() => {
    try {
      localStorage.setItem(KEY, themeChoice.get());
    } catch {
      // ignore
    }
    apply();
  });
}

export function resolvedTheme(): "light" | "dark" {
  const c = themeChoice.get();
  return c === "system" ? (media.matches ? "dark" : "light") : c;
}

/**
 * Every click flips what the user sees (light ↔ dark). Landing on the system's own theme stores
 * "system", so the page follows the system again from then on.
 */
export function cycleTheme(): void {
  const next = resolvedTheme() === "dark" ? "light" : "dark";
  const system = media.matches ? "dark" : "light";
  themeChoice.set(next === system ? "system" : next);
}
