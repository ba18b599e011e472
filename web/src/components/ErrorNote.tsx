import { linkClick } from "../state/router";
import { errorAdvice } from "../util/errors";
import { VisibleText } from "./VisibleText";

/** One error in a plain sentence, a link to fix it where the app can, and the raw details folded. */
export function ErrorNote({ code, message }: { code: string; message: string }) {
  const a = errorAdvice(code, message);
  return (
    <div class="error-note" role="alert" data-code={code}>
      <p class="error-sentence">
        {a.sentence}
        {a.fix === "settings" && (
          <>
            {" "}
            Fix it in{" "}
            <a href="/settings" onClick={(e) => linkClick(e, "/settings")}>
              Settings
            </a>
            .
          </>
        )}
      </p>
      {message && (
        <details class="error-details">
          <summary>Details</summary>
          <p>
            <VisibleText text={message} /> <code>{code}</code>
          </p>
        </details>
      )}
    </div>
  );
}
