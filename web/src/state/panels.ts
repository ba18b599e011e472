// Side panels of the session view (artifacts) that other components can open.
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
