/**
 * A session's workspace in its header: the whole path when it fits; when it does not, the folders
 * before the last one give up their room first (an ellipsis in the middle), so the folder the
 * session works in stays readable. The title has the whole path.
 */
export function WorkspacePath({ path }: { path: string }) {
  const cut = path.replace(/\/+$/, "").lastIndexOf("/");
  const head = cut > 0 ? path.slice(0, cut + 1) : "";
  const tail = cut > 0 ? path.slice(cut + 1) : path;
  return (
    <span class="ws-path" title={path}>
      {head && <span class="ws-head">{head}</span>}
      <span class="ws-tail">{tail}</span>
    </span>
  );
}
