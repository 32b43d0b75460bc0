import { useEffect, useState } from 'preact/hooks';
import type { Changes } from '../../../wire/changes.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { agentControlsHref, changesHref, threadHref } from '../../stores/route.js';
import { saveDraft, flushDraft } from '../../stores/drafts.js';
import { ScreenBar } from '../ScreenBar.js';
import { ChangeActions } from './ChangeActions.js';
import { DiffView } from './DiffView.js';
import { showInvisibles } from '../../../wire/visible-text.js';
import './changes.css';

const KIND: Record<string, string> = {
  modified: 'M',
  added: 'A',
  deleted: 'D',
  renamed: 'R',
  copied: 'C',
  type_changed: 'T',
  unmerged: 'U',
  untracked: '?',
};

/** Puts `@<path> ` in the agent's composer and opens its thread, where the owner finishes the question. */
async function askAbout(agent: string, file: string): Promise<void> {
  saveDraft(agent, `@${file} `);
  await flushDraft(agent);
  location.hash = threadHref(agent);
}

/**
 * `#/c/<agent>`: the agent workspace's changed files (git status), each with a box to select it for a commit or a
 * discard, and the actions on them (ChangeActions); `#/c/<agent>/f/<path>` one file's diff, with "Ask about this
 * file". Paths and diffs are the agent's text: rendered as text nodes only.
 */
export function ChangesView({ agent, file }: { agent: string; file?: string }) {
  const [changes, setChanges] = useState<Changes | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<readonly string[]>([]);
  const load = () =>
    api.changes(agent).then(
      (c) => {
        setChanges(c);
        setError(null);
        // A file committed or discarded is no longer listed, nor selected.
        setSelected((s) => s.filter((p) => c.files.some((f) => f.path === p)));
      },
      async (err: unknown) => {
        if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
      },
    );
  useEffect(() => void load(), [agent]);
  const toggle = (path: string, on: boolean) =>
    setSelected((s) => (on ? [...s.filter((p) => p !== path), path] : s.filter((p) => p !== path)));
  const all = changes?.files.map((f) => f.path) ?? [];
  return (
    <section class={`screen changes-screen${file ? ' has-file' : ''}`} data-screen="changes" data-changes={agent}>
      <ScreenBar
        title={file ? file.split('/').pop() : `Changes · ${agent}`}
        back={file ? changesHref(agent) : agentControlsHref(agent)}
        backLabel={file ? 'Back to the changed files' : `Back to managing ${agent}`}
      >
        <button type="button" class="refresh" onClick={() => void load()} aria-label="Refresh">
          ↻
        </button>
      </ScreenBar>
      <div class="changes-body">
        <nav class="change-files" aria-label="Changed files">
          {error && (
            <p class="form-error" role="alert">
              {error}
            </p>
          )}
          {changes && (
            <p class="muted change-ws" title={changes.workspace}>
              {changes.files.length === 0
                ? 'No changes in the workspace.'
                : `${changes.files.length}${changes.truncated ? '+' : ''} changed ${changes.files.length === 1 ? 'file' : 'files'}`}
            </p>
          )}
          {changes?.truncated && <p class="muted">Only the first {changes.files.length} are listed.</p>}
          {all.length > 0 && (
            <div class="select-row">
              <button
                type="button"
                class="button-link"
                onClick={() => setSelected(all)}
                disabled={selected.length === all.length}
              >
                Select all
              </button>
              <button
                type="button"
                class="button-link"
                onClick={() => setSelected([])}
                disabled={selected.length === 0}
              >
                Select none
              </button>
              <span class="muted">
                {selected.length ? `${selected.length} selected` : 'none selected: a commit takes all'}
              </span>
            </div>
          )}
          <ul class="change-list">
            {changes?.files.map((f) => (
              <li key={f.path} data-file={f.path} data-kind={f.kind}>
                <label class="change-select">
                  <input
                    type="checkbox"
                    checked={selected.includes(f.path)}
                    onChange={(e) => toggle(f.path, e.currentTarget.checked)}
                  />
                  <span class="sr-only">Select {showInvisibles(f.path)}</span>
                </label>
                <a
                  class="change-link"
                  href={changesHref(agent, f.path)}
                  aria-current={f.path === file ? 'page' : undefined}
                >
                  <span class={`change-kind kind-${f.kind}`} title={f.kind.replace('_', ' ')}>
                    {KIND[f.kind]}
                  </span>
                  <span class="change-path">
                    {f.orig_path ? `${showInvisibles(f.orig_path)} → ` : ''}
                    {showInvisibles(f.path)}
                  </span>
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {changes && (
          <ChangeActions
            agent={agent}
            files={changes.files}
            head={changes.head}
            selected={selected}
            onChanged={() => void load()}
          />
        )}
        {file ? (
          <div class="change-diff">
            <div class="diff-head">
              <code class="diff-path">{showInvisibles(file)}</code>
              <button type="button" class="primary ask-about" onClick={() => void askAbout(agent, file)}>
                Ask about this file
              </button>
            </div>
            <DiffView key={file} agent={agent} file={file} />
          </div>
        ) : (
          <p class="muted change-pick">Pick a file to see its diff.</p>
        )}
      </div>
    </section>
  );
}
