import { defineConfig } from "vite";

// Deterministic build: file names come from content hashes only, no timestamps.
export default defineConfig({
  base: "/",
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  build: {
    outDir: "../static",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    modulePreload: { polyfill: false },
    chunkSizeWarningLimit: 4000,
    assetsInlineLimit: 0,
  },
  server: {
    proxy: {
      "/api": { target: "http://127.0.0.1:7420", ws: true },
    },
  },
});
