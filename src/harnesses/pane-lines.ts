/** Lines as displayed: trailing blanks dropped, no-break spaces (Claude pads its prompt with them) made plain. */
export function paneLines(pane: string): string[] {
  const lines = pane
    .replace(/\u00a0/g, ' ')
    .split('\n')
    .map((l) => l.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}
