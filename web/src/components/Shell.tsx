import { useEffect } from "preact/hooks";
import { api } from "../api/client";
import { providerMissing } from "../state/app";
import { phoneLayout } from "../state/layout";
import { useObservable } from "../state/observable";
import { route } from "../state/router";
import { ConfirmDialog } from "./ConfirmDialog";
import { SearchDialog } from "./SearchDialog";
import { SessionList } from "./SessionList";
import { SessionView } from "./SessionView";
import { Shortcuts } from "./Shortcuts";
import { Settings } from "./Settings";
import { Setup } from "./Setup";
import { TitleUpdater } from "./TitleUpdater";
import { TopBar } from "./TopBar";
import { Welcome } from "./Welcome";

export function Shell() {
  const r = useObservable(route);
  const needsSetup = useObservable(providerMissing);
  const phone = useObservable(phoneLayout);
  // At phone width the home page is the list: it is then the page's main content (and its h1).
  const listIsPage = phone && r.name === "home" && !needsSetup;
  useEffect(() => {
    api.getProvider().then(
      (p) => providerMissing.set(!p.kind),
      () => undefined,
    );
  }, []);
  return (
    <div class={`shell route-${r.name}${needsSetup ? " needs-setup" : ""}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <TitleUpdater />
      <TopBar />
      <SearchDialog />
      <ConfirmDialog />
      <Shortcuts />
      <div class="panes">
        {listIsPage ? (
          <main id="main" class="sidebar list-page" tabIndex={-1}>
            <SessionList activeId={null} headingLevel={1} />
          </main>
        ) : (
          <nav class="sidebar" aria-label="Sessions">
            <SessionList activeId={r.name === "session" ? r.id : null} />
          </nav>
        )}
        {!listIsPage && <main id="main" class="main" tabIndex={-1}>
          {needsSetup && r.name !== "settings" ? (
            <Setup />
          ) : (
            <>
              {r.name === "session" && <SessionView key={r.id} id={r.id} review={r.review === true} />}
              {r.name === "settings" && <Settings />}
              {r.name === "home" && <Welcome />}
            </>
          )}
        </main>}
      </div>
    </div>
  );
}
