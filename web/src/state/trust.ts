// Trusting a workspace's skills, hooks or agents as a page showed them: the page sends the hash
// it was given, and files changed since are refused (409). The list is then read again, so what
// is shown is what the next attempt trusts; the refusal says so in plain words.
import { ApiError, errorText } from "../api/client";
import { type Action, useAction } from "./action";

/**
 * The Trust action of a panel: `trust(hash)` answers the list as it now is (`onTrusted` takes
 * it); a failure reads the list again (`reload`) and says `changed` for a 409.
 */
export function useTrust<L>(
  trust: (hash: string) => Promise<L>,
  reload: () => Promise<unknown>,
  onTrusted: (list: L) => void,
  changed: string,
): Action<[string]> {
  return useAction(
    async (hash: string) => {
      let list: L;
      try {
        list = await trust(hash);
      } catch (e) {
        await reload();
        throw e;
      }
      onTrusted(list);
    },
    { message: (e) => (e instanceof ApiError && e.status === 409 ? changed : errorText(e)) },
  );
}
