import { useEffect, useRef } from "preact/hooks";
import { newSessionForm } from "../state/projects";
import { linkClick, navigate } from "../state/router";
import "../projects.css";

/**
 * The page of a session address the server does not know (deleted, or mistyped): says so, and
 * leads back to the sessions or to a new one. Its heading takes the focus, so it is read first.
 */
export function SessionNotFound({ id }: { id: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="empty-state not-found" aria-labelledby="not-found-title" data-not-found>
      <h1 id="not-found-title" ref={heading} tabIndex={-1}>
        Session not found
      </h1>
      <p>
        There is no session <code class="not-found-id">{id}</code>. It may have been deleted, or the address is
        mistyped.
      </p>
      <div class="row not-found-actions">
        <a class="btn primary" href="/" onClick={(e) => linkClick(e, "/")}>
          Back to your sessions
        </a>
        <button
          type="button"
          class="btn"
          onClick={() => {
            navigate("/");
            newSessionForm.set(true);
          }}
        >
          New session
        </button>
      </div>
    </section>
  );
}
