// Pure. Spawn's `repo`, `branch` and `base` come from API callers and templates and reach git's command line; git
// reads a word starting with `-` as an option (`--upload-pack=…` runs a program), so each is checked here and passed
// where git cannot take it for one (after `--` for clone; checkout of git 2.39 has no --end-of-options, so the
// leading-`-` refusal is what keeps a ref from being read as an option there).

/** Why `repo` cannot be cloned, or null. */
export function repoProblem(repo: string): string | null {
  if (repo.startsWith('-')) return 'must not start with "-"';
  if (/[\0-\x1f\x7f]/.test(repo)) return 'must not hold control characters';
  return null;
}

/**
 * Why `ref` is no usable branch or base, or null: git's own ref-name rules (git check-ref-format) plus no leading
 * `-`, checked before git sees it so the caller gets a 400 naming the field.
 */
export function refProblem(ref: string): string | null {
  if (ref.startsWith('-')) return 'must not start with "-"';
  if (/[\0-\x20\x7f~^:?*[\\]/.test(ref)) return 'must not hold spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.includes('..') || ref.includes('@{') || ref.includes('//')) return 'must not hold "..", "@{" or "//"';
  if (ref === '@' || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock'))
    return 'must be a git ref name';
  if (ref.split('/').some((part) => part.startsWith('.'))) return 'no part of it may start with "."';
  return null;
}
