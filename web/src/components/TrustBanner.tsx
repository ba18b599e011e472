import type { ComponentChildren } from "preact";

/**
 * The workspace's skills, hooks or agents are held back until trusted: says so, where they are,
 * and the button that trusts them as shown (`hash`, what the list answered). `children`: what the
 * last attempt answered, under the button.
 */
export function TrustBanner({
  what,
  where,
  hash,
  busy,
  onTrust,
  children,
}: {
  /** "skills", "hooks" or "agents". */
  what: string;
  /** Where in the workspace they are, to be read before trusting them. */
  where: ComponentChildren;
  hash: string;
  busy: boolean;
  onTrust: (hash: string) => void;
  children: ComponentChildren;
}) {
  return (
    <div class="trust-banner" data-untrusted={what}>
      <p class="trust-banner-text">
        <strong>This workspace has {what} that are held back until you trust them.</strong>
      </p>
      <p class="small">
        They come with the repository ({where}), so none is used until you trust them as they are now: read them
        first. Any later change holds them back again.
      </p>
      <button
        type="button"
        class="btn primary small"
        // aria-disabled, not disabled: the focus stays on the button while the request runs.
        aria-disabled={busy}
        onClick={() => !busy && onTrust(hash)}
      >
        {busy ? "Trusting…" : `Trust this workspace's ${what}`}
      </button>
      {children}
    </div>
  );
}
