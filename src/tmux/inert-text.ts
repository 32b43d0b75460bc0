/**
 * Text made safe to paste into a terminal: it can be read by the program as typed text, never act on it as keys.
 *
 * A paste is bytes on the program's input, and a program in raw mode reads control characters in it as keys: ESC
 * starts sequences (ESC [ 201 ~ ends a bracketed paste early, so whatever follows arrives as typing, outside the
 * paste — a `1` there answers a permission dialog), ^C interrupts, ^D ends input, CR is Enter, DEL erases. tmux passes
 * them all through. So every C0 control but tab and newline, DEL and every C1 control (U+0080–U+009F: 8-bit CSI and
 * friends) is replaced by a visible stand-in, and line ends become newlines. What the text says stays readable; only
 * its power over the terminal goes. Bidi and other format characters are not controls to a terminal and stay.
 */
export function inertText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(CONTROLS, standIn);
}

const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** C0 controls and DEL as their Unicode Control Pictures (␛, ␃, ␡), C1 controls as the replacement character. */
function standIn(c: string): string {
  const code = c.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return '\ufffd';
}
