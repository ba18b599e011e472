// Panels that other components can open: the session view's side panels (artifacts,
// permissions, the goal) and a panel of the Settings page (`/skills`, `/agents`, `/plugins`).
import { Observable } from "./observable";
import { navigate } from "./router";

export interface ArtifactsPanelState {
  /** Select this artifact when the panel opens. */
  artifactId: string | null;
  /** Bumped on each open request so the panel re-selects. */
  n: number;
}

export const artifactsPanel = new Observable<ArtifactsPanelState | null>(null);

export function openArtifacts(artifactId: string | null = null): void {
  artifactsPanel.set({ artifactId, n: (artifactsPanel.get()?.n ?? 0) + 1 });
}

export function closeArtifacts(): void {
  artifactsPanel.set(null);
}

/** The permissions panel of the session view (grants, ceiling, tools). */
export const permissionsPanel = new Observable<boolean>(false);

export function togglePermissions(): void {
  permissionsPanel.set(!permissionsPanel.get());
}

export function closePermissions(): void {
  permissionsPanel.set(false);
}

/**
 * A session's goal panel is asked to open (`/goal`): `focus` moves the focus into it (`/goal`
 * alone), else it only unfolds (`/goal OBJECTIVE`, the prompt keeps the focus). `n` tells
 * requests apart.
 */
export const goalPanelRequest = new Observable<{ session: string; focus: boolean; n: number } | null>(null);
let goalRequests = 0;

export function openGoalPanel(sessionId: string, focus = true): void {
  goalPanelRequest.set({ session: sessionId, focus, n: ++goalRequests });
}

/** The panels of the Settings page a command can bring into view, by the id of their heading. */
export const SETTINGS_PANELS = { skills: "skills-h", agents: "agents-h", plugins: "plugins-h" } as const;
export type SettingsPanel = keyof typeof SETTINGS_PANELS;

/**
 * A panel of the Settings page is asked for: Settings brings its heading into view and gives it
 * the focus, then clears the request. `n` tells requests apart.
 */
export const settingsPanelRequest = new Observable<{ panel: SettingsPanel; n: number } | null>(null);
let settingsRequests = 0;

/** Go to Settings, at `panel`. */
export function openSettingsPanel(panel: SettingsPanel): void {
  settingsPanelRequest.set({ panel, n: ++settingsRequests });
  navigate("/settings");
}
