/**
 * POSIX shell quoting, for the one place Leo hands a command line to a shell: the agent command tmux starts in a
 * pane. Single quotes are the only quoting where nothing inside is special, so each argument is wrapped in them and an
 * embedded quote is written as `'\''` (close, escaped quote, reopen).
 */

/** Words that need no quoting in any position: no globbing, expansion, assignment (`=`), tilde or comment start. */
const SAFE_WORD = /^[A-Za-z0-9_/.,:@%+-]+$/;

export function shellQuote(arg: string): string {
  // A NUL cannot be passed in an argv at all; failing here beats a truncated argument later.
  if (arg.includes('\0')) throw new Error('shellQuote: an argument cannot contain a NUL character');
  if (SAFE_WORD.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** An argv as one shell command line that runs exactly that argv. */
export function shellQuoteArgv(argv: readonly string[]): string {
  if (argv.length === 0) throw new Error('shellQuoteArgv: the command is empty');
  return argv.map(shellQuote).join(' ');
}
