// Side panels of the session view (artifacts, permissions, the goal) that other components can open.
import { Observable } from "./observable";

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
