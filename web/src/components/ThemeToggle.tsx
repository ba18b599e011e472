import { useObservable } from "../state/observable";
import { cycleTheme, themeChoice } from "../state/theme";

const ICON = { system: "◐", light: "☀", dark: "☾" } as const;

export function ThemeToggle() {
  const t = useObservable(themeChoice);
  return (
    <button
      type="button"
      class="icon-btn"
      onClick={cycleTheme}
      title={`Theme: ${t} (click to change)`}
      aria-label={`Theme: ${t}`}
    >
      {ICON[t]}
    </button>
  );
}
