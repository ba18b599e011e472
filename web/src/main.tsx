import { options, render } from "preact";
import "./styles.css";
import { App } from "./components/App";
import { registerServiceWorker } from "./pwa";
import { warmMarkdown } from "./render/markdown";
import { startEarly } from "./state/auth";
import { afterPaint } from "./state/frame";
import { initTheme } from "./state/theme";

options.requestAnimationFrame = afterPaint;
initTheme();
startEarly();
registerServiceWorker();
const root = document.getElementById("app");
if (root) render(<App />, root);
warmMarkdown();
