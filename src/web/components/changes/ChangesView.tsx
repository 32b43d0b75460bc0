import { useEffect, useState } from 'preact/hooks';
import type { Changes } from '../../../wire/changes.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { agentControlsHref, changesHref, threadHref } from '../../stores/route.js';
import { saveDraft, flushDraft } from '../../stores/drafts.js';
import { ScreenBar } from '../ScreenBar.js';
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
 * `#/c/<agent>`: the agent workspace's changed files (git status); `#/c/<agent>/f/<path>` one file's diff, with
 * "Ask about this file". Read-only. Paths and diffs are the agent's text: rendered as text nodes only.
 */
export function ChangesView({ agent, file }: { agent: string; file?: string }) {
  const [changes, setChanges] = useState<Changes | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = () =>
    api.changes(agent).then(
      (c) => {
        setChanges(c);
        setError(null);
      },
      async (err: unknown) => {
        if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
      },
    );
  useEffect(() => void load(), [agent]);
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
          <ul class="change-list">
            {changes?.files.map((f) => (
              <li key={f.path} data-file={f.path} data-kind={f.kind}>
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
