import { Observable } from "./observable";

/** Pending approvals/questions/plans in the open session (its list status may lag). */
export const attentionCount = new Observable<number>(0);
