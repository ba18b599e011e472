// The phone layout (one pane at a time), as the stylesheet's breakpoint decides it.
import { Observable } from "./observable";

const query = window.matchMedia("(max-width: 760px)");

/** True at phone width: the home page is the session list itself. */
export const phoneLayout = new Observable<boolean>(query.matches);
query.addEventListener("change", () => phoneLayout.set(query.matches));
