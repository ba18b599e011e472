import { describe, expect, it } from "vitest";
import { plainSnippet } from "./plainSnippet";

/** The marked words of a result. */
const marked = (r: { text: string; highlights: number[][] }) => r.highlights.map(([a, b]) => r.text.slice(a, b));

describe("plainSnippet", () => {
  it("drops Markdown's marks and keeps the words marked", () => {
    const text = "## Cache plan\n\nUse **Redis** for the `session` store.";
    const at = (w: string) => [text.indexOf(w), text.indexOf(w) + w.length];
    const r = plainSnippet(text, [at("Redis"), at("session")]);
    expect(r.text).toBe("Cache plan Use Redis for the session store.");
    expect(marked(r)).toEqual(["Redis", "session"]);
  });

  it("keeps a link's text, drops its address, bullets, quotes and fences", () => {
    const r = plainSnippet("> see [the docs](https://x.test/a) and\n- *one* item\n```rust\nfn main() {}\n```", []);
    expect(r.text).toBe("see the docs and one item fn main() {}");
  });

  it("leaves a lone star, snake_case and arithmetic alone", () => {
    expect(plainSnippet("a * b = c in my_var_name", []).text).toBe("a * b = c in my_var_name");
  });

  it("drops a highlight that covered only marks", () => {
    const r = plainSnippet("**bold**", [[0, 2]]);
    expect(r).toEqual({ text: "bold", highlights: [] });
  });
});
