import { useEffect, useMemo, useState } from 'preact/hooks';
import type { FileDiff } from '../../../wire/changes.js';
import { parseUnifiedDiff, splitRows, type DiffRow } from '../../render/diff.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { showBidiControls } from '../../../wire/visible-text.js';

/** Wide enough for two columns of code side by side; narrower screens read the unified diff. */
const SPLIT = window.matchMedia('(min-width: 1100px)');

function useWide(): boolean {
  const [wide, setWide] = useState(SPLIT.matches);
  useEffect(() => {
    const on = () => setWide(SPLIT.matches);
    SPLIT.addEventListener('change', on);
    return () => SPLIT.removeEventListener('change', on);
  }, []);
  return wide;
}

const no = (n: number | undefined) => (n === undefined ? '' : String(n));

function Unified({ rows }: { rows: DiffRow[] }) {
  return (
    <table class="diff diff-unified" data-view="unified">
      <colgroup>
        <col class="ln-col" />
        <col class="ln-col" />
        <col />
      </colgroup>
      <tbody>
        {rows.map((r, i) =>
          r.kind === 'meta' || r.kind === 'hunk' ? (
            <tr key={i} class={`d-${r.kind}`}>
              <td colSpan={3}>{showBidiControls(r.text)}</td>
            </tr>
          ) : (
            <tr key={i} class={`d-${r.kind}`}>
              <td class="ln">{no('old' in r ? r.old : undefined)}</td>
              <td class="ln">{no('new' in r ? r.new : undefined)}</td>
              <td class="code">
                <span class="sign" aria-hidden="true">
                  {r.kind === 'add' ? '+' : r.kind === 'del' ? '−' : ' '}
                </span>
                {showBidiControls(r.text)}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

function Split({ rows }: { rows: DiffRow[] }) {
  const split = useMemo(() => splitRows(rows), [rows]);
  return (
    <table class="diff diff-split" data-view="split">
      <colgroup>
        <col class="ln-col" />
        <col />
        <col class="ln-col" />
        <col />
      </colgroup>
      <tbody>
        {split.map((r, i) =>
          r.kind !== 'pair' ? (
            <tr key={i} class={`d-${r.kind}`}>
              <td colSpan={4}>{showBidiControls(r.text)}</td>
            </tr>
          ) : (
            <tr key={i}>
              <td class="ln">{r.left ? r.left.no : ''}</td>
              <td class={`code ${r.left ? (r.left.del ? 'd-del' : '') : 'd-none'}`}>
                {r.left && showBidiControls(r.left.text)}
              </td>
              <td class="ln">{r.right ? r.right.no : ''}</td>
              <td class={`code ${r.right ? (r.right.add ? 'd-add' : '') : 'd-none'}`}>
                {r.right && showBidiControls(r.right.text)}
              </td>
            </tr>
          ),
        )}
      </tbody>
    </table>
  );
}

/** One file's diff from the daemon, unified on phones and split side by side on wide screens; text nodes only. */
export function DiffView({ agent, file }: { agent: string; file: string }) {
  const [diff, setDiff] = useState<FileDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const wide = useWide();
  useEffect(() => {
    api.diff(agent, file).then(setDiff, async (err: unknown) => {
      if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
    });
  }, [agent, file]);
  const rows = useMemo(() => (diff ? parseUnifiedDiff(diff.diff) : []), [diff]);
  if (error)
    return (
      <p class="form-error" role="alert">
        {error}
      </p>
    );
  if (!diff) return <p class="muted">Loading the diff…</p>;
  if (!diff.diff) return <p class="muted">No difference from HEAD.</p>;
  return (
    <div class="diff-wrap" data-diff={file}>
      {diff.truncated && <p class="muted">The diff is long: only its first 1 MB is shown.</p>}
      {wide ? <Split rows={rows} /> : <Unified rows={rows} />}
    </div>
  );
}
