// What a failed command's output says about what was missing: a program the shell could not find
// ("/bin/sh: 1: x: not found") is not a path the sandbox hid, and the program that printed a
// message (the shell naming itself) is no missing path at all.

/** Shells' "not found" lines: dash, bash, zsh, ksh; the program's name is the first group. */
const NOT_FOUND: RegExp[] = [
  /^(?:\S*\/)?(?:ba|da|k|z)?sh: (?:line )?\d+: (.+?): (?:command )?not found$/,
  /^(?:\S*\/)?(?:ba|da|k)?sh: (.+?): (?:command )?not found$/,
  /^(?:\S*\/)?zsh: command not found: (.+)$/,
];

/** Programs the shell could not find (by name, not by path), in the order it said so. */
export function missingPrograms(output: string): string[] {
  const found: string[] = [];
  for (const line of output.split("\n")) {
    const l = line.trim();
    for (const re of NOT_FOUND) {
      const m = re.exec(l);
      if (m && !m[1].includes("/") && !found.includes(m[1])) found.push(m[1]);
      if (m) break;
    }
  }
  return found;
}

/**
 * The hidden paths a failed command's output really names as paths it could not reach: a path
 * that only appears as the program printing a line ("/bin/sh: 1: x: not found": the shell ran,
 * so the sandbox did not hide it) is left out.
 */
export function reachedFor(hidden: readonly string[], output: string): string[] {
  return hidden.filter((p) => {
    let named = 0;
    let asReporter = 0;
    for (let at = output.indexOf(p); at >= 0; at = output.indexOf(p, at + p.length)) {
      named++;
      const lineStart = at === 0 || output[at - 1] === "\n";
      if (lineStart && output.startsWith(": ", at + p.length)) asReporter++;
    }
    return named === 0 || asReporter < named;
  });
}
