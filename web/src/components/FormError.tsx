interface Props {
  /** What to say; nothing is shown without it. */
  error: string | null | undefined;
  small?: boolean;
  /** In a line of controls (a span), not under a form (a paragraph). */
  inline?: boolean;
  /** `alert` (the default) is read out at once; `status` waits for a pause. */
  role?: "alert" | "status";
  /** What a field's `aria-describedby` names. */
  id?: string;
  [data: `data-${string}`]: string | boolean | undefined;
}

/** The message of an action that failed (`useAction`'s `error`), read out when it appears. */
export function FormError({ error, small = false, inline = false, role = "alert", ...rest }: Props) {
  if (!error) return null;
  const cls = small ? "error small" : "error";
  return inline ? (
    <span {...rest} class={cls} role={role}>
      {error}
    </span>
  ) : (
    <p {...rest} class={cls} role={role}>
      {error}
    </p>
  );
}
