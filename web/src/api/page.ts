// The page token: the half of a browser's sign-in that no other page can send. The login cookie
// alone opens only the app's own files; every API request carries this token too (the
// `X-Tradewind-Page` header; the WebSocket's first frame), so a page of another port or site on
// this host, which the browser gives the cookie as well, can use neither. The server hands it over
// at sign-in: as a header of the `POST /api/login` answer, or in the fragment of the address a
// sign-in link redirects to (`/#tw-page=…`, never sent to a server). It is kept in localStorage
// under `tradewind.page` (shared by the app's tabs), never in a cookie.

/** The header every API request carries the token in. */
export const PAGE_HEADER = "X-Tradewind-Page";
const KEY = "tradewind.page";
const FRAGMENT = "tw-page";

/** The token while localStorage cannot be used (storage blocked): this tab only. */
let inMemory: string | null = null;

/** The stored page token, or null (signed out, or signed in before tokens existed). */
export function pageToken(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return inMemory;
  }
}

export function setPageToken(token: string): void {
  inMemory = token;
  try {
    localStorage.setItem(KEY, token);
  } catch {
    // Kept in memory only: a reload signs this tab out.
  }
}

/**
 * Forget the token (sign-out, or an answer 401). `sent`: only if it is still the token a refused
 * request carried, so an answer to an old request never drops the token another tab just stored.
 */
export function clearPageToken(sent?: string | null): void {
  if (sent !== undefined && pageToken() !== sent) return;
  inMemory = null;
  try {
    localStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}

/**
 * The token a fragment (`#tw-page=…`) carries ("" when empty), and the fragment without it ("" when
 * nothing is left); null when the fragment has none.
 */
export function splitFragment(hash: string): { token: string; rest: string } | null {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const token = params.get(FRAGMENT);
  if (token === null) return null;
  params.delete(FRAGMENT);
  const rest = params.toString();
  return { token, rest: rest ? `#${rest}` : "" };
}

/**
 * At start, before any request: the token a sign-in link's redirect put in the address is stored,
 * and taken out of the address bar (and so out of history and bookmarks); path and query stay.
 */
export function adoptPageTokenFromAddress(): void {
  const found = location.hash ? splitFragment(location.hash) : null;
  if (!found) return;
  if (found.token) setPageToken(found.token);
  history.replaceState(history.state, "", `${location.pathname}${location.search}${found.rest}`);
}
