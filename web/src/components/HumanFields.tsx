import { type Field, keyWords } from "../util/humanText";
import { VisibleText } from "./VisibleText";
import "../polish.css";

/** Rows of `key  value`, each value with its real line breaks (control characters made visible). */
export function FieldRows({ fields, class: cls = "" }: { fields: Field[]; class?: string }) {
  if (fields.length === 0) return null;
  return (
    <dl class={`result-fields ${cls}`.trim()}>
      {fields.map((f, i) => (
        <div key={i} class="result-field" data-key={f.key}>
          <dt>{keyWords(f.key)}</dt>
          <dd>
            <VisibleText text={f.value} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** The model's bookkeeping (ids, fingerprints, offsets), folded away under "Details". */
export function Internals({ fields }: { fields: Field[] }) {
  if (fields.length === 0) return null;
  return (
    <details class="tool-internals">
      <summary>Details (ids and fingerprints)</summary>
      <FieldRows fields={fields} />
    </details>
  );
}
