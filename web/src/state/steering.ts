// What the user did to a run that the run's events cannot say: runs stopped with Esc (their end
// reads "Stopped — press Resume to continue", not "cancelled").
import { Observable } from "./observable";

export const stoppedByEsc = new Observable<ReadonlySet<string>>(new Set());

export function markStoppedByEsc(runId: string): void {
  const next = new Set(stoppedByEsc.get());
  next.add(runId);
  stoppedByEsc.set(next);
}
