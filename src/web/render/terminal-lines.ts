import Anser from 'anser';

/** One run of text with the same look on a terminal row. Colours are `r, g, b` strings, as anser reads them. */
export interface TermRun {
  text: string;
  fg: string | null;
  bg: string | null;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
}

/**
 * A screen from the terminal API as rows of styled runs. tmux has already drawn the screen (capture-pane -e): what
 * is left in the text are SGR sequences, read by anser into plain segments; nothing here is HTML, so the pane's text
 * can only ever become text nodes.
 */
export function terminalLines(ansi: string): TermRun[][] {
  // SGR state carries across rows in a capture, so the whole screen is read at once and split at the newlines.
  const rows: TermRun[][] = [[]];
  for (const e of Anser.ansiToJson(ansi, { json: true, remove_empty: true })) {
    const decorations = e.decorations ?? [];
    const look = {
      fg: e.fg_truecolor ?? e.fg ?? null,
      bg: e.bg_truecolor ?? e.bg ?? null,
      bold: decorations.includes('bold'),
      dim: decorations.includes('dim'),
      italic: decorations.includes('italic'),
      underline: decorations.includes('underline'),
      inverse: decorations.includes('reverse'),
    };
    const parts = e.content.split('\n');
    parts.forEach((text, i) => {
      if (i > 0) rows.push([]);
      if (text) rows[rows.length - 1]!.push({ text, ...look });
    });
  }
  return rows;
}
