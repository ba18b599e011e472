import { render } from "preact";
import "./styles.css";
import { App } from "./components/App";
import { initTheme } from "./state/theme";

initTheme();
const root = document.getElementById("app");
if (root) render(<App />, root);
