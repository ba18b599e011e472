// What went stale while the server was out of reach is refreshed when the live connection
// comes back, so no "cannot be reached" message outlives the outage.
import { useEffect, useRef } from "preact/hooks";
import { NETWORK_MESSAGE } from "../api/client";
import { connection } from "../api/socket";

/** Calls `fn` each time the WebSocket opens again after it was lost. */
export function useOnReconnect(fn: () => void): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => connection.reopened.subscribe(() => ref.current()), []);
}

/** Clears an error message on reconnect when it only said the server could not be reached. */
export function useClearNetworkError(error: string | null, clear: () => void): void {
  useOnReconnect(() => {
    if (error !== null && error.includes(NETWORK_MESSAGE)) clear();
  });
}
