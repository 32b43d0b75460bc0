/**
 * How values reach tmux verbatim. Commands that carry an agent's environment are sent as a command file on stdin
 * (`source-file -`), so their words are quoted for tmux's command-file parser.
 */

/** A word for tmux's command-file parser: nothing is special inside single quotes; a quote is spliced in from "'". */
export function tmuxWord(value: string): string {
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/** Arguments tmux expands as formats (a start directory, for one) keep a literal `#` only when it is doubled. */
export function tmuxFormatLiteral(value: string): string {
  return value.replace(/#/g, '##');
}
