/**
 * tmux post-processes some of the arguments it is given, so a value that must arrive verbatim is escaped first.
 */

/**
 * tmux 3.x treats a command-line argument that ends in `;` as a command separator (`a;` is `a` then a new command);
 * an argument ending in `\;` arrives ending in `;`. Every other argument passes through untouched.
 */
export function tmuxArg(value: string): string {
  return value.endsWith(';') ? `${value.slice(0, -1)}\\;` : value;
}

/** Arguments tmux expands as formats (a start directory, for one) keep a literal `#` only when it is doubled. */
export function tmuxFormatLiteral(value: string): string {
  return tmuxArg(value.replace(/#/g, '##'));
}
