// Syntax highlighting, loaded on demand: highlight.js's core, then each language the first time a
// text is in it (the languages of highlight.js's common set, under their names and aliases).
// Registering the whole set at once cost more than highlighting a reply's code.
import type { HLJSApi, LanguageFn } from "highlight.js";
import { sanitizeSpans } from "./markdown";

type Definition = () => Promise<{ default: LanguageFn }>;

const LANGUAGES: Record<string, Definition> = {
  bash: () => import("highlight.js/lib/languages/bash"),
  c: () => import("highlight.js/lib/languages/c"),
  cpp: () => import("highlight.js/lib/languages/cpp"),
  csharp: () => import("highlight.js/lib/languages/csharp"),
  css: () => import("highlight.js/lib/languages/css"),
  diff: () => import("highlight.js/lib/languages/diff"),
  go: () => import("highlight.js/lib/languages/go"),
  graphql: () => import("highlight.js/lib/languages/graphql"),
  ini: () => import("highlight.js/lib/languages/ini"),
  java: () => import("highlight.js/lib/languages/java"),
  javascript: () => import("highlight.js/lib/languages/javascript"),
  json: () => import("highlight.js/lib/languages/json"),
  kotlin: () => import("highlight.js/lib/languages/kotlin"),
  less: () => import("highlight.js/lib/languages/less"),
  lua: () => import("highlight.js/lib/languages/lua"),
  makefile: () => import("highlight.js/lib/languages/makefile"),
  markdown: () => import("highlight.js/lib/languages/markdown"),
  objectivec: () => import("highlight.js/lib/languages/objectivec"),
  perl: () => import("highlight.js/lib/languages/perl"),
  php: () => import("highlight.js/lib/languages/php"),
  "php-template": () => import("highlight.js/lib/languages/php-template"),
  plaintext: () => import("highlight.js/lib/languages/plaintext"),
  python: () => import("highlight.js/lib/languages/python"),
  "python-repl": () => import("highlight.js/lib/languages/python-repl"),
  r: () => import("highlight.js/lib/languages/r"),
  ruby: () => import("highlight.js/lib/languages/ruby"),
  rust: () => import("highlight.js/lib/languages/rust"),
  scss: () => import("highlight.js/lib/languages/scss"),
  shell: () => import("highlight.js/lib/languages/shell"),
  sql: () => import("highlight.js/lib/languages/sql"),
  swift: () => import("highlight.js/lib/languages/swift"),
  typescript: () => import("highlight.js/lib/languages/typescript"),
  vbnet: () => import("highlight.js/lib/languages/vbnet"),
  wasm: () => import("highlight.js/lib/languages/wasm"),
  xml: () => import("highlight.js/lib/languages/xml"),
  yaml: () => import("highlight.js/lib/languages/yaml"),
};

/** The languages' aliases (from their definitions), known before a definition is loaded. */
const ALIASES: Record<string, string> = {
  sh: "bash", zsh: "bash", h: "c", cc: "cpp", "c++": "cpp", "h++": "cpp", hpp: "cpp", hh: "cpp", hxx: "cpp",
  cxx: "cpp", cs: "csharp", "c#": "csharp", patch: "diff", golang: "go", gql: "graphql", toml: "ini",
  jsp: "java", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript", jsonc: "json",
  json5: "json", kt: "kotlin", kts: "kotlin", ktm: "kotlin", ktx: "kotlin", pluto: "lua", mk: "makefile",
  mak: "makefile", make: "makefile", md: "markdown", mkdown: "markdown", mkd: "markdown", mm: "objectivec",
  objc: "objectivec", "obj-c": "objectivec", "obj-c++": "objectivec", "objective-c++": "objectivec",
  pl: "perl", pm: "perl", text: "plaintext", txt: "plaintext", py: "python", gyp: "python", ipython: "python",
  pycon: "python-repl", rb: "ruby", gemspec: "ruby", podspec: "ruby", thor: "ruby", irb: "ruby", rs: "rust",
  console: "shell", shellsession: "shell", ts: "typescript", tsx: "typescript", mts: "typescript",
  cts: "typescript", vb: "vbnet", html: "xml", xhtml: "xml", rss: "xml", atom: "xml", xjb: "xml", xsd: "xml",
  xsl: "xml", plist: "xml", wsf: "xml", svg: "xml", yml: "yaml",
};

/** Languages a language's text embeds (highlighted as such once they are registered too). */
const EMBEDS: Record<string, string[]> = {
  xml: ["css", "javascript"],
  markdown: ["xml"],
  "php-template": ["php", "xml"],
  shell: ["bash"],
  "python-repl": ["python"],
  javascript: ["xml", "css"],
  typescript: ["xml", "css"],
};

let core: Promise<HLJSApi> | null = null;
const registered = new Map<string, Promise<void>>();

function register(hljs: HLJSApi, name: string): Promise<void> {
  let done = registered.get(name);
  if (!done) {
    done = LANGUAGES[name]().then((m) => hljs.registerLanguage(name, m.default));
    registered.set(name, done);
  }
  return done;
}

/**
 * highlight.js with the language (a name or alias) registered, and those it embeds; null when it
 * is not one we highlight.
 */
async function withLanguage(lang: string): Promise<HLJSApi | null> {
  const name = ALIASES[lang] ?? lang;
  if (!Object.hasOwn(LANGUAGES, name)) return null;
  core ??= import("highlight.js/lib/core").then((m) => m.default);
  const hljs = await core;
  await Promise.all([name, ...(EMBEDS[name] ?? [])].map((n) => register(hljs, n)));
  return hljs;
}

const languageOf = (el: Element) => /language-([a-z0-9_+#.-]+)/.exec(el.className)?.[1];

/** Highlight every `code[class^=language-]` under root (once each). */
export async function highlightWithin(root: HTMLElement): Promise<void> {
  const blocks = root.querySelectorAll<HTMLElement>("pre code[class*='language-']:not([data-hl])");
  if (blocks.length === 0) return;
  const langs = [...new Set(Array.from(blocks, languageOf))].filter((l): l is string => !!l);
  const ready = new Map(await Promise.all(langs.map(async (l) => [l, await withLanguage(l)] as const)));
  blocks.forEach((el) => {
    if (!el.isConnected || el.dataset.hl) return;
    const lang = languageOf(el);
    const hljs = lang ? ready.get(lang) : null;
    if (!lang || !hljs) return;
    const html = hljs.highlight(el.textContent ?? "", { language: lang, ignoreIllegals: true }).value;
    el.replaceChildren(sanitizeSpans(html));
    el.dataset.hl = "1";
  });
}

/** Highlight one string; resolves to a fragment or null when the language is unknown. */
export async function highlightCode(code: string, lang: string): Promise<DocumentFragment | null> {
  const hljs = await withLanguage(lang);
  if (!hljs) return null;
  return sanitizeSpans(hljs.highlight(code, { language: lang, ignoreIllegals: true }).value);
}
