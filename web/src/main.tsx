import { options, render } from "preact";
import "./styles.css";
import { adoptPageTokenFromAddress } from "./api/page";
import { App } from "./components/App";
import "./layout-polish.css";
import { registerServiceWorker } from "./pwa";
import { warmMarkdown } from "./render/markdown";
import { startEarly } from "./state/auth";
import { afterPaint } from "./state/frame";
import { initTheme } from "./state/theme";

// First of all: a sign-in link's page token, before any request needs it.
adoptPageTokenFromAddress();
options.requestAnimationFrame = afterPaint;
initTheme();
startEarly();
registerServiceWorker();
const root = document.getElementById("app");
if (root) render(<App />, root);
warmMarkdown();
