import { useObservable } from "../state/observable";
import { cycleTheme, resolvedTheme, themeChoice } from "../state/theme";

const ICON = { light: "☀", dark: "☾" } as const;

export function ThemeToggle() {
  const t = useObservable(themeChoice);
  const shown = resolvedTheme();
  const next = shown === "dark" ? "light" : "dark";
  const how = t === "system" ? `${shown} (as the system)` : shown;
  return (
    <button
      type="button"
      class="icon-btn theme-toggle"
      onClick={cycleTheme}
      title={`Theme: ${how}. Click for ${next}.`}
      aria-label={`Switch to the ${next} theme`}
      data-theme-shown={shown}
    >
      {ICON[shown]}
    </button>
  );
}
