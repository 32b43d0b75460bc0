// What every harness's TUI furniture is described by (see chrome.ts, which blanks it), and the hint they all draw.

/** How one harness's TUI draws its furniture in a captured pane. */
export interface Chrome {
  /**
   * Starts a line the user typed: the harness's input box (or a dialog's selected option) and every echo of a sent
   * prompt. The last such line is the input area: it and everything below it (the footer) are furniture.
   */
  prompt?: RegExp;
  /** Furniture lines wherever they are (tested on the trimmed line). */
  lines: RegExp[];
  /** A banner: this line and the ones up to the next blank line. */
  banner?: RegExp;
  /** The bordered box the input sits in (its top-to-bottom lines end at `inputBoxBottom`), and everything below. */
  inputBoxBottom?: RegExp;
  inputBoxSide?: RegExp;
  /** A sidebar's column, found from one of its lines; everything right of it is cut from every line. */
  sidebarAnchor?: RegExp;
  /** A border in front of a line's text, removed from what is shown. */
  leadingBorder?: RegExp;
}

/** A key hint anywhere in the line; no agent prints these while working. */
export const INTERRUPT_HINT = /\besc to interrupt\b|\besc interrupt\b/i;
