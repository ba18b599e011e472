// App-wide state: who is signed in and the server's config.
import type { ServerConfig, WhoAmI } from "../api/types";
import { Observable } from "./observable";

export type AuthState =
  | { status: "loading" }
  | { status: "signed_out"; reason?: string }
  | { status: "signed_in"; who: WhoAmI }
  | { status: "unreachable"; message: string };

export const auth = new Observable<AuthState>({ status: "loading" });
export const serverConfig = new Observable<ServerConfig | null>(null);
/** true when the server has no model provider configured yet (first start). */
export const providerMissing = new Observable<boolean>(false);
