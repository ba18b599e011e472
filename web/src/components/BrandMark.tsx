/**
 * The logo (favicon.svg's drawing), inline: an SVG image, as a CSS background or an <img>, is a
 * document of its own that the page builds on the main thread as it opens (10–30 ms here).
 */
export function BrandMark() {
  return (
    <svg class="brand-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
      <rect width="32" height="32" rx="7" fill="#0e7490" />
      <path
        d="M6 12c5-4 10 4 20-1M6 18c5-4 10 4 20-1M6 24c5-4 10 4 14 0"
        stroke="#fff"
        stroke-width="2.4"
        fill="none"
        stroke-linecap="round"
      />
    </svg>
  );
}
