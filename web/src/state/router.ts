// History-API routing: "/", "/s/:id", "/settings".
import { Observable } from "./observable";

export type Route =
  | { name: "home" }
  | { name: "session"; id: string }
  | { name: "settings" };

export function parseRoute(path: string): Route {
  const m = /^\/s\/([^/]+)\/?$/.exec(path);
  if (m) return { name: "session", id: decodeURIComponent(m[1]) };
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

/** onClick for <a href> links: navigate in-app unless a modifier asks for a new tab. */
export function linkClick(e: MouseEvent, path: string): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(path);
}
