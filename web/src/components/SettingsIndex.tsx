/** The Settings page's sections in their order: each heading's id and the index's word for it. */
const SECTIONS: readonly (readonly [id: string, label: string, needsConfig?: boolean])[] = [
  ["providers-h", "Model providers"],
  ["usage-h", "Usage"],
  ["websearch-h", "Web search"],
  ["mcp-h", "MCP servers"],
  ["skills-h", "Skills"],
  ["hooks-h", "Hooks"],
  ["agents-h", "Agents"],
  ["plugins-h", "Plugins"],
  ["memories-h", "Memory"],
  ["appearance-h", "Appearance and alerts"],
  ["push-h", "Notifications"],
  ["conn-h", "Connection", true],
  ["devices-h", "Devices"],
  ["tokens-h", "API tokens"],
  ["server-h", "Server", true],
];

/**
 * Links to each section of Settings, at its top (wrapping on a phone). A link brings its section's
 * heading to the top of the page and gives it the focus, so the keyboard goes on from there; the
 * address stays the page's own.
 */
export function SettingsIndex({ haveConfig }: { haveConfig: boolean }) {
  const go = (e: MouseEvent, id: string) => {
    const heading = document.getElementById(id);
    if (!heading || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    if (!heading.hasAttribute("tabindex")) heading.tabIndex = -1;
    heading.scrollIntoView({ block: "start" });
    heading.focus({ preventScroll: true });
  };
  return (
    <nav class="settings-index" aria-label="Settings sections">
      <ul>
        {SECTIONS.filter(([, , needsConfig]) => haveConfig || !needsConfig).map(([id, label]) => (
          <li key={id}>
            <a href={`#${id}`} onClick={(e) => go(e, id)}>
              {label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
