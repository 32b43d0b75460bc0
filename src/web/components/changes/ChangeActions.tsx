import { useEffect, useRef, useState } from 'preact/hooks';
import {
  CommitResult,
  DiscardResult,
  PullRequestResult,
  PushResult,
  type ChangedFile,
  type Changes,
  type CommitBody,
  type DiscardBody,
  type PullRequestBody,
  type PushBody,
} from '../../../wire/changes.js';
import { showBidiControls } from '../../../wire/visible-text.js';
import { ApiError } from '../../api/client.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { agents } from '../../stores/fleet.js';
import { askForCommitMessage } from './suggest.js';

type Step = 'commit' | 'push' | 'pr' | 'discard';

/** What a step answered: git's result or its error in full (untrusted text), a link, a forced retry when busy. */
interface Outcome {
  ok: boolean;
  text: string;
  link?: string;
  again?: () => void;
}

/** The four writes, each with its body and answer (the client's one call for them takes any). */
const write = {
  commit: (agent: string, body: CommitBody) => api.changeAction(agent, 'commit', CommitResult, body),
  discard: (agent: string, body: DiscardBody) => api.changeAction(agent, 'discard', DiscardResult, body),
  push: (agent: string, body: PushBody) => api.changeAction(agent, 'push', PushResult, body),
  pullRequest: (agent: string, body: PullRequestBody) =>
    api.changeAction(agent, 'pull-request', PullRequestResult, body),
};

/** An answer's link is followed only when it is a web page. */
const webLink = (url: string) => (/^https?:\/\//i.test(url) ? url : undefined);

/**
 * One write at a time from this panel, each step's last outcome kept beside it. A 409 `agent_busy` offers "Do it
 * anyway", which sends the same request with `force: true`.
 */
function useSteps() {
  const [busy, setBusy] = useState<Step | null>(null);
  const [outcomes, setOutcomes] = useState<Partial<Record<Step, Outcome>>>({});
  const show = (step: Step, o: Outcome | undefined) => setOutcomes((all) => ({ ...all, [step]: o }));
  const run = async <T,>(
    step: Step,
    job: (force: boolean) => Promise<T>,
    shown: (r: T) => Outcome,
    after: (r: T) => void = () => {},
    force = false,
  ): Promise<void> => {
    setBusy(step);
    show(step, undefined);
    try {
      const r = await job(force);
      show(step, shown(r));
      after(r);
    } catch (err) {
      if (await onUnpaired(err)) return;
      const text = err instanceof Error ? err.message : String(err);
      const inTurn = err instanceof ApiError && err.code === 'agent_busy';
      show(step, { ok: false, text, ...(inTurn ? { again: () => void run(step, job, shown, after, true) } : {}) });
    } finally {
      setBusy(null);
    }
  };
  return { busy, outcomes, run };
}

function Result({ step, out }: { step: Step; out: Outcome | undefined }) {
  if (!out) return null;
  const href = out.link && webLink(out.link);
  return (
    <div class={`action-result ${out.ok ? 'ok' : 'bad'}`} role={out.ok ? 'status' : 'alert'} data-result={step}>
      <pre>{showBidiControls(out.text)}</pre>
      {href && (
        <a href={href} target="_blank" rel="noopener noreferrer" data-pr-link>
          {/* A compare page's query (the title and body again) would only make the link longer to read. */}
          {showBidiControls(href.split('?')[0]!)}
        </a>
      )}
      {out.again && (
        <button type="button" class="button-link do-anyway" onClick={out.again}>
          Do it anyway
        </button>
      )}
    </div>
  );
}

/**
 * The writes on an agent's changes (issue 33) under its changed files: commit the selected files (or all) with a
 * message the owner writes or asks the agent for, push, open a pull request, discard the selected files after a
 * confirmation that names them. Each step shows what git (or gh) answered, errors in full.
 */
export function ChangeActions({
  agent,
  files,
  head,
  selected,
  onChanged,
}: {
  agent: string;
  files: readonly ChangedFile[];
  /** The last commit, whose subject a pull request's title starts as until the owner writes one. */
  head: Changes['head'];
  selected: readonly string[];
  /** The workspace changed: list its files again (and drop what is no longer there from the selection). */
  onChanged: () => void;
}) {
  const { busy, outcomes, run } = useSteps();
  const [message, setMessage] = useState('');
  const [waiting, setWaiting] = useState(false);
  const [written, setTitle] = useState<string | null>(null);
  const title = written ?? head?.subject ?? '';
  const [body, setBody] = useState('');
  const [base, setBase] = useState('');
  const [confirming, setConfirming] = useState(false);
  const stopWaiting = useRef<(() => void) | null>(null);
  useEffect(() => () => stopWaiting.current?.(), []);
  const who = agents.value.get(agent)?.display_name ?? agent;
  const paths = selected.length ? selected.slice() : undefined;
  const picked = files.filter((f) => selected.includes(f.path));
  const untracked = picked.filter((f) => f.kind === 'untracked').map((f) => f.path);
  const tracked = picked.filter((f) => f.kind !== 'untracked').map((f) => f.path);

  const suggest = () => {
    stopWaiting.current?.();
    setWaiting(true);
    stopWaiting.current = askForCommitMessage(agent, selected, (text) => {
      stopWaiting.current = null;
      setWaiting(false);
      setMessage(text);
    });
  };

  const commit = () =>
    run(
      'commit',
      (force) => write.commit(agent, { message, ...(paths ? { paths } : {}), ...(force ? { force } : {}) }),
      (c) => ({ ok: true, text: `commit ${c.commit}\n${c.summary}` }),
      () => {
        setMessage('');
        onChanged();
      },
    );

  const push = () =>
    run(
      'push',
      (force) => write.push(agent, force ? { force } : {}),
      (p) => ({
        ok: true,
        text: `Pushed ${p.branch} to ${p.remote}/${p.remote_branch}${p.set_upstream ? ' (upstream set)' : ''}\n${p.output}`,
      }),
    );

  const pullRequest = () =>
    run(
      'pr',
      (force) =>
        write.pullRequest(agent, {
          title,
          body,
          ...(base.trim() ? { base: base.trim() } : {}),
          ...(force ? { force } : {}),
        }),
      (pr) =>
        pr.via === 'gh'
          ? { ok: true, text: `Pull request opened: ${pr.head} → ${pr.base ?? 'the default branch'}`, link: pr.url }
          : {
              ok: true,
              text: `Finish the pull request on the forge's page (${pr.head} → ${pr.base ?? 'the default branch'}):`,
              link: pr.url,
            },
      (pr) => {
        const href = webLink(pr.url);
        // The forge's page opens in a new tab; its link stays below in case the browser held the tab back.
        if (pr.via === 'compare' && href) window.open(href, '_blank', 'noopener,noreferrer');
      },
    );

  const discard = () =>
    run(
      'discard',
      (force) => write.discard(agent, { paths: selected.slice(), ...(force ? { force } : {}) }),
      (d) => ({
        ok: true,
        text:
          [
            ...(d.restored.length ? [`Put back as last committed: ${d.restored.join(', ')}`] : []),
            ...(d.removed.length ? [`Deleted: ${d.removed.join(', ')}`] : []),
          ].join('\n') || 'Nothing had changed.',
      }),
      () => {
        setConfirming(false);
        onChanged();
      },
    );

  return (
    <div class="change-actions" data-change-actions={agent}>
      <section class="action-step" aria-labelledby="commit-h">
        <h2 id="commit-h">Commit</h2>
        <label class="sr-only" for="commit-message">
          Commit message
        </label>
        <textarea
          id="commit-message"
          rows={5}
          placeholder="Commit message"
          value={message}
          onInput={(e) => setMessage(e.currentTarget.value)}
        />
        {waiting && (
          <div class="waiting">
            <p class="muted" role="status">
              waiting for {who}…
            </p>
            {/* A request the agent never answers (stopped, or the outbox could not send it) need not hold the box. */}
            <button
              type="button"
              class="button-link"
              onClick={() => {
                stopWaiting.current?.();
                stopWaiting.current = null;
                setWaiting(false);
              }}
            >
              Stop waiting
            </button>
          </div>
        )}
        <div class="action-row">
          <button type="button" class="button-link" onClick={suggest} disabled={waiting}>
            Suggest
          </button>
          <button
            type="button"
            class="button-link primary"
            onClick={() => void commit()}
            disabled={busy !== null || !message.trim() || files.length === 0}
          >
            {paths ? `Commit ${paths.length} ${paths.length === 1 ? 'file' : 'files'}` : 'Commit all'}
          </button>
        </div>
        <Result step="commit" out={outcomes.commit} />
      </section>

      <section class="action-step" aria-labelledby="push-h">
        <h2 id="push-h">Push</h2>
        <div class="action-row">
          <button type="button" class="button-link" onClick={() => void push()} disabled={busy !== null}>
            Push
          </button>
        </div>
        <Result step="push" out={outcomes.push} />
      </section>

      <section class="action-step" aria-labelledby="pr-h">
        <h2 id="pr-h">Pull request</h2>
        <label>
          Title
          <input value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Description
          <textarea rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
        </label>
        <label>
          <span>
            Into branch <span class="muted">(optional)</span>
          </span>
          <input
            value={base}
            placeholder="the default branch"
            autocapitalize="off"
            spellcheck={false}
            onInput={(e) => setBase(e.currentTarget.value)}
          />
        </label>
        <div class="action-row">
          <button
            type="button"
            class="button-link"
            onClick={() => void pullRequest()}
            disabled={busy !== null || !title.trim()}
          >
            Open pull request
          </button>
        </div>
        <Result step="pr" out={outcomes.pr} />
      </section>

      <section class="action-step" aria-labelledby="discard-h">
        <h2 id="discard-h">Discard</h2>
        {!confirming ? (
          <div class="action-row">
            <button
              type="button"
              class="button-link danger"
              onClick={() => setConfirming(true)}
              disabled={busy !== null || selected.length === 0}
            >
              Discard selected…
            </button>
          </div>
        ) : (
          <div role="alertdialog" aria-labelledby="discard-q" class="confirm">
            <p id="discard-q">Throw away the changes to {selected.length === 1 ? 'this file' : 'these files'}?</p>
            {tracked.length > 0 && (
              <p>
                Put back as last committed: <span class="paths">{showBidiControls(tracked.join(', '))}</span>
              </p>
            )}
            {untracked.length > 0 && (
              <p>
                <strong>Deleted for good</strong> (new files git never had a copy of):{' '}
                <span class="paths">{showBidiControls(untracked.join(', '))}</span>
              </p>
            )}
            <div class="action-row">
              <button type="button" class="button-link" onClick={() => setConfirming(false)}>
                Keep them
              </button>
              <button type="button" class="button-link danger" onClick={() => void discard()} disabled={busy !== null}>
                Discard
              </button>
            </div>
          </div>
        )}
        <Result step="discard" out={outcomes.discard} />
      </section>
    </div>
  );
}
