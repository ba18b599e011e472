import { splitSkipped } from "../util/extensions";

/**
 * The files or folders a catalogue (skills, agents) left out, each with why: the path as code
 * when the line starts with one. `data-*` attributes go on the list's box.
 */
export function SkippedList({ lines, ...rest }: { lines: string[]; [data: `data-${string}`]: string | boolean | undefined }) {
  return (
    <div {...rest} class="extension-skipped">
      <h3>Left out</h3>
      <ul class="small">
        {lines.map((line) => {
          const { path, why } = splitSkipped(line);
          return (
            <li key={line}>
              {path && (
                <>
                  <code>{path}</code>:{" "}
                </>
              )}
              {why}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
