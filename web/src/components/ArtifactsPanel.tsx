import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, artifactDownloadUrl, artifactFileUrl, errorText } from "../api/client";
import type { Artifact, ArtifactFile } from "../api/types";
import { useObservable } from "../state/observable";
import { focusPlace, useShortcut } from "../state/keys";
import { artifactsPanel, closeArtifacts } from "../state/panels";
import { relativeTime } from "../util/format";
import { Diagram } from "./Diagram";
import { Markdown } from "./Markdown";
import { VisibleText } from "./VisibleText";

interface TreeNode {
  name: string;
  path: string;
  file: ArtifactFile | null;
  children: TreeNode[];
}

function buildTree(files: ArtifactFile[]): TreeNode[] {
  const root: TreeNode = { name: "", path: "", file: null, children: [] };
  for (const f of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const parts = f.path.split("/").filter(Boolean);
    let node = root;
    parts.forEach((part, i) => {
      const path = parts.slice(0, i + 1).join("/");
      let child = node.children.find((c) => c.name === part && (i === parts.length - 1 ? true : c.file === null));
      if (!child) {
        child = { name: part, path, file: i === parts.length - 1 ? f : null, children: [] };
        node.children.push(child);
      }
      node = child;
    });
  }
  // Folders first, then files.
  const sort = (n: TreeNode) => {
    n.children.sort((a, b) => Number(a.file !== null) - Number(b.file !== null) || a.name.localeCompare(b.name));
    n.children.forEach(sort);
  };
  sort(root);
  return root.children;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function Tree({ nodes, selected, onSelect }: { nodes: TreeNode[]; selected: string | null; onSelect: (f: ArtifactFile) => void }) {
  return (
    <ul class="tree">
      {nodes.map((n) =>
        n.file ? (
          <li key={n.path}>
            <button
              type="button"
              class={`tree-file${selected === n.file.path ? " selected" : ""}`}
              aria-current={selected === n.file.path ? "true" : undefined}
              data-path={n.file.path}
              onClick={() => onSelect(n.file!)}
            >
              <span class="tree-name">
                <VisibleText text={n.name} />
              </span>
              <span class="muted small">{size(n.file.size)}</span>
            </button>
          </li>
        ) : (
          <li key={n.path}>
            <details open>
              <summary class="tree-folder">
                <VisibleText text={n.name} />/
              </summary>
              <Tree nodes={n.children} selected={selected} onSelect={onSelect} />
            </details>
          </li>
        ),
      )}
    </ul>
  );
}

const MAX_PREVIEW = 512 * 1024;

function CodePreview({ text, lang }: { text: string; lang: string | null }) {
  const ref = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.textContent = text;
    if (!lang || text.length > 200_000) return;
    let live = true;
    void import("../render/highlight").then(async (m) => {
      const frag = await m.highlightCode(text, lang);
      if (live && frag && ref.current === el) el.replaceChildren(frag);
    });
    return () => {
      live = false;
    };
  }, [text, lang]);
  return (
    <pre class="code artifact-code">
      <code ref={ref} />
    </pre>
  );
}

const EXT_LANG: Record<string, string> = {
  rs: "rust", ts: "typescript", tsx: "typescript", js: "javascript", mjs: "javascript", py: "python",
  sh: "bash", toml: "ini", yaml: "yaml", yml: "yaml", css: "css", html: "xml", xml: "xml", go: "go", sql: "sql",
};

function Preview({ artifact, file }: { artifact: Artifact; file: ArtifactFile }) {
  const [state, setState] = useState<{ text: string } | { error: string } | null>(null);
  useEffect(() => {
    let live = true;
    setState(null);
    api.artifactText(artifact.id, file.path).then(
      (text) => live && setState({ text }),
      (e) => live && setState({ error: errorText(e) }),
    );
    return () => {
      live = false;
    };
  }, [artifact.id, file.path]);

  const ext = (/\.([a-z0-9]+)$/i.exec(file.path)?.[1] ?? "").toLowerCase();
  let body = null;
  if (!state) body = <p class="muted small">Loading…</p>;
  else if ("error" in state) body = <p class="error small">Could not load the file: {state.error}</p>;
  else {
    const text = state.text.length > MAX_PREVIEW ? state.text.slice(0, MAX_PREVIEW) : state.text;
    if (ext === "md" || ext === "markdown") body = <Markdown source={text} final />;
    else if (ext === "mmd") body = <Diagram source={text} />;
    else if (ext === "json") {
      let pretty = text;
      try {
        pretty = JSON.stringify(JSON.parse(text), null, 2);
      } catch {
        /* shown as is */
      }
      body = <CodePreview text={pretty} lang="json" />;
    } else body = <CodePreview text={text} lang={EXT_LANG[ext] ?? null} />;
    if (state.text.length > MAX_PREVIEW) {
      body = (
        <>
          {body}
          <p class="muted small">Preview cut at {size(MAX_PREVIEW)}; download the file for the rest.</p>
        </>
      );
    }
  }
  return (
    <div class="artifact-preview" data-preview-path={file.path}>
      <div class="artifact-preview-head">
        <code>
          <VisibleText text={file.path} />
        </code>
        <a class="btn small ghost" href={artifactFileUrl(artifact.id, file.path)} download>
          Download file
        </a>
      </div>
      {body}
    </div>
  );
}

/** A session's artifact folders (one per plan revision): tree, preview, download. */
export function ArtifactsPanel({ sessionId, refreshKey }: { sessionId: string; refreshKey: number }) {
  const panel = useObservable(artifactsPanel);
  const [list, setList] = useState<Artifact[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selId, setSelId] = useState<string | null>(null);
  const [file, setFile] = useState<ArtifactFile | null>(null);
  // Esc closes the drawer: from inside it (the focus goes back to what opened it), or from
  // anywhere but a text field other than the prompt. The opener is what had the focus as it opened.
  const opener = useRef<Element | null>(null);
  useLayoutEffect(() => {
    if (panel) opener.current = document.activeElement;
  }, [!!panel]);
  const close = (inside: boolean) => {
    closeArtifacts();
    const back = opener.current;
    if (inside && back instanceof HTMLElement && back.isConnected) back.focus({ preventScroll: true });
  };
  useShortcut("close", (e) => {
    if (!artifactsPanel.get() || focusPlace(e.target instanceof Element ? e.target : null) === "field") return false;
    close(e.target instanceof Element && !!e.target.closest(".artifacts-panel"));
    return true;
  });

  useEffect(() => {
    if (!panel) return;
    let live = true;
    api.artifacts(sessionId).then(
      (r) => {
        if (!live) return;
        setList(r.data);
        setError(null);
      },
      (e) => live && setError(errorText(e)),
    );
    return () => {
      live = false;
    };
  }, [sessionId, refreshKey, !!panel]);

  // Newest revision first.
  const sorted = useMemo(
    () => [...(list ?? [])].sort((a, b) => b.created_at - a.created_at || b.revision - a.revision),
    [list],
  );

  // Select what was asked for, else the newest.
  useEffect(() => {
    if (!panel || sorted.length === 0) return;
    const want = panel.artifactId && sorted.find((a) => a.id === panel.artifactId) ? panel.artifactId : null;
    setSelId((cur) => want ?? (cur && sorted.some((a) => a.id === cur) ? cur : sorted[0].id));
  }, [panel?.n, sorted]);

  const sel = sorted.find((a) => a.id === selId) ?? null;
  const tree = useMemo(() => (sel ? buildTree(sel.files ?? []) : []), [sel]);

  useEffect(() => {
    if (!sel) return setFile(null);
    setFile((cur) => {
      if (cur && sel.files.some((f) => f.path === cur.path)) return sel.files.find((f) => f.path === cur.path) ?? null;
      return sel.files.find((f) => f.path === "plan.md") ?? sel.files[0] ?? null;
    });
  }, [sel]);

  if (!panel) return null;

  return (
    <aside class="artifacts-panel" aria-label="Artifacts">
      <header class="artifacts-head">
        <b>Artifacts</b>
        <span class="spacer" />
        <button type="button" class="btn small ghost" onClick={closeArtifacts} aria-label="Close artifacts" title="Esc">
          ✕
        </button>
      </header>
      {error && <p class="error small">{error}</p>}
      {list && list.length === 0 && <p class="muted small">No artifacts in this session yet.</p>}
      {sorted.length > 0 && (
        <div class="artifacts-body">
          <div class="artifacts-nav">
            <ul class="artifact-list">
              {sorted.map((a) => (
                <li key={a.id}>
                  <button
                    type="button"
                    class={`artifact-item${a.id === selId ? " selected" : ""}`}
                    aria-current={a.id === selId ? "true" : undefined}
                    data-artifact-id={a.id}
                    onClick={() => setSelId(a.id)}
                  >
                    <span class="artifact-name">
                      <VisibleText text={a.name} />
                      <span class="muted small"> · rev {a.revision}</span>
                    </span>
                    {a.title && (
                      <span class="muted small block">
                        <VisibleText text={a.title} />
                      </span>
                    )}
                    <span class="muted small block">{relativeTime(a.created_at)}</span>
                  </button>
                </li>
              ))}
            </ul>
            {sel && (
              <div class="artifact-folder">
                <div class="artifact-folder-head">
                  <span class="tree-folder">
                    <VisibleText text={sel.name} /> (rev {sel.revision})
                  </span>
                </div>
                <Tree nodes={tree} selected={file?.path ?? null} onSelect={setFile} />
                <div class="row artifact-downloads">
                  <a class="btn small" href={artifactDownloadUrl(sel.id, "zip")} download>
                    Download .zip
                  </a>
                  <a class="btn small ghost" href={artifactDownloadUrl(sel.id, "tar")} download>
                    .tar
                  </a>
                </div>
              </div>
            )}
          </div>
          {sel && file && <Preview key={`${sel.id}/${file.path}`} artifact={sel} file={file} />}
        </div>
      )}
    </aside>
  );
}
