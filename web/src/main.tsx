import { render } from "preact";
import "./styles.css";
import { App } from "./components/App";
import { registerServiceWorker } from "./pwa";
import { initTheme } from "./state/theme";

initTheme();
registerServiceWorker();
const root = document.getElementById("app");
if (root) render(<App />, root);
