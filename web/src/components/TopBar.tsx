import { auth } from "../state/app";
import { ARIA_KEYS, shortcutsSheet } from "../state/keys";
import { signOut } from "../state/auth";
import { useObservable } from "../state/observable";
import { linkClick, route } from "../state/router";
import { BrandMark } from "./BrandMark";
import { ConnectionIndicator } from "./ConnectionIndicator";
import { ThemeToggle } from "./ThemeToggle";

export function TopBar() {
  const a = useObservable(auth);
  const r = useObservable(route);
  const who = a.status === "signed_in" ? a.who : null;
  return (
    <header class="topbar">
      {r.name !== "home" && (
        <a class="icon-btn back-btn" href="/" onClick={(e) => linkClick(e, "/")} aria-label="All sessions">
          ‹
        </a>
      )}
      <a class="brand" href="/" onClick={(e) => linkClick(e, "/")} aria-label="Tradewind home">
        <BrandMark />
        <span class="brand-name">Tradewind</span>
      </a>
      <span class="spacer" />
      <ConnectionIndicator />
      <ThemeToggle />
      <button
        type="button"
        class="icon-btn"
        onClick={() => shortcutsSheet.set(true)}
        aria-label="Keyboard shortcuts"
        aria-keyshortcuts={ARIA_KEYS.shortcuts}
        title="Keyboard shortcuts (?)"
      >
        ?
      </button>
      <a
        class={`icon-btn${r.name === "settings" ? " active" : ""}`}
        href="/settings"
        onClick={(e) => linkClick(e, "/settings")}
        title="Settings"
        aria-label="Settings"
      >
        ⚙
      </a>
      <button
        type="button"
        class="btn small ghost"
        onClick={() => void signOut()}
        title={who ? `Signed in (${who.kind})` : undefined}
      >
        Sign out
      </button>
    </header>
  );
}
