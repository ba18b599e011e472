// History-API routing: "/", "/s/:id", "/s/:id/review", "/settings".
import { Observable } from "./observable";

export type Route =
  | { name: "home" }
  /** `review`: the session's changes as one diff, in place of its conversation. */
  | { name: "session"; id: string; review?: boolean }
  | { name: "settings" };

export function parseRoute(path: string): Route {
  const m = /^\/s\/([^/]+)(\/review)?\/?$/.exec(path);
  if (m) return m[2] ? { name: "session", id: decodeURIComponent(m[1]), review: true } : { name: "session", id: decodeURIComponent(m[1]) };
  if (path === "/settings" || path === "/settings/") return { name: "settings" };
  return { name: "home" };
}

export const route = new Observable<Route>(parseRoute(location.pathname));

window.addEventListener("popstate", () => route.set(parseRoute(location.pathname)));

export function navigate(path: string, replace = false): void {
  if (path === location.pathname) {
    route.set(parseRoute(path));
    return;
  }
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route.set(parseRoute(path));
}

export function sessionPath(id: string): string {
  return `/s/${encodeURIComponent(id)}`;
}

/** The session's review: everything it changed, as one diff. */
export function reviewPath(id: string): string {
  return `${sessionPath(id)}/review`;
}

/** onClick for <a href> links: navigate in-app unless a modifier asks for a new tab. */
export function linkClick(e: MouseEvent, path: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}
