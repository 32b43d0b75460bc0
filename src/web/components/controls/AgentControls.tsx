import { useEffect, useState } from 'preact/hooks';
import { api } from '../../stores/auth.js';
import { agents, dropAgent } from '../../stores/fleet.js';
import { changesHref, threadHref } from '../../stores/route.js';
import { ScreenBar } from '../ScreenBar.js';
import { useAction } from './useAction.js';
import { AgentUsage } from '../usage/AgentUsage.js';
import { AppearanceForm } from './AppearanceForm.js';
import { EnvironmentChoices } from './EnvironmentChoices.js';
import { NoFleetNote } from './NoFleetNote.js';
import { mayRunFleet } from '../../stores/caller.js';
import { hostOf, hosts, unreachable } from '../../stores/hosts.js';
import { parseAddress } from '../../../wire/agent-address.js';
import { moves, movesOffered, underWay } from '../../stores/moves.js';
import type { MoveOperation } from '../../../wire/move.js';
import type { WorktreeLeft } from '../../../wire/agent-bodies.js';
import { Suspense, lazy } from 'preact/compat';
import './controls.css';

// The move sheet loads when it is first opened: most owners never move an agent.
const MoveSheet = lazy(() => import('../move/MoveSheet.js').then((m) => ({ default: m.MoveSheet })));

/** A lifecycle button's label, and its label while the request runs. */
const LIFECYCLE = {
  stop: ['Stop', 'Stopping…'],
  start: ['Start', 'Starting…'],
  restart: ['Restart', 'Restarting…'],
} as const;

/**
 * One agent's controls (`#/a/<agent>`): stop / start / restart, rename, what it cost, appearance, template, environments, remove — the
 * daemon's agent routes, its refusals shown as it words them. Removing asks once more, naming the agent. A device
 * without the fleet scope sees what it cost, its changed files and its appearance, and a note where the rest would be.
 */
export function AgentControls({ agent }: { agent: string }) {
  const a = agents.value.get(agent);
  const { busy, error, run } = useAction();
  // A remote agent's name is its host's: `den` of `den@box` (the hub renames it on box).
  const named = parseAddress(agent)?.name ?? agent;
  const [name, setName] = useState(named);
  const [templates, setTemplates] = useState<string[]>([]);
  const [environments, setEnvironments] = useState<string[]>([]);
  const [template, setTemplate] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [sheet, setSheet] = useState<MoveOperation['kind'] | null>(null);
  // A removed agent's worktree that stayed (it held work): said before the screen goes back to the fleet.
  const [keptTree, setKeptTree] = useState<WorktreeLeft | null>(null);
  useEffect(() => {
    void run('load', async () => {
      // A remote agent takes its own machine's templates and environments.
      const host = hostOf(agent);
      const [t, e] = await Promise.all([api.templates(host), api.environments(host)]);
      setTemplates(t.map((x) => x.name));
      setEnvironments(e.map((x) => x.name));
      return null;
    });
  }, [agent]);
  useEffect(() => {
    setTemplate(a?.template ?? '');
    setChosen(a?.environments ?? []);
  }, [a?.template, a?.environments?.join(',')]);

  if (keptTree) return <KeptWorktree agent={agent} tree={keptTree} />;
  if (!a)
    return (
      <section class="screen controls" data-screen="agent">
        <ScreenBar title={agent} back="#/" backLabel="Back to the fleet" badge={false} />
        <main>
          <p class="empty">There is no agent named {agent} any more.</p>
        </main>
      </section>
    );
  const running = a.status === 'running' || a.status === 'starting';
  const fleet = mayRunFleet.value;
  // An agent of a host the hub cannot reach is shown as last known; what would act on it waits for the host.
  const down = unreachable(agent);
  const locked = !!busy || !!down;
  // On a hub with another machine, for an agent that lives here (a dormant record has nothing left to move).
  const movable = fleet && movesOffered.value && !!hosts.value?.length && !a.moved_to;
  const moving = moves.value.get(agent);
  return (
    <section class="screen controls" data-screen="agent" data-controls={agent}>
      <ScreenBar title={`Manage ${a.display_name}`} back={threadHref(agent)} backLabel={`Back to ${agent}'s thread`} />
      <main class="control-groups">
        <p class="muted" data-status={a.status}>
          {a.status} · {a.harness}
          {a.template ? ` · template ${a.template}` : ''}
        </p>
        {down && (
          <p class="host-down" role="status" data-host-down>
            {down}: its controls are back when it is.
          </p>
        )}
        {error && (
          <p class="form-error" role="alert">
            {error}
          </p>
        )}
        {!fleet && <NoFleetNote what="Starting, stopping, renaming, switching or removing this agent" />}
        <div class="control-row">
          {fleet &&
            ([running ? 'stop' : 'start', 'restart'] as const).map((action) => (
              <button
                key={action}
                type="button"
                class={action === 'start' ? 'primary' : undefined}
                disabled={locked}
                onClick={() => void run(action, () => api.lifecycle(agent, action))}
              >
                {LIFECYCLE[action][busy === action ? 1 : 0]}
              </button>
            ))}
          <a class="button-link changes-link" href={changesHref(agent)}>
            Changed files
          </a>
        </div>

        {movable && (
          <div class="control-row" data-move-actions>
            {(['move', 'copy'] as const).map((kind) => (
              <button
                key={kind}
                type="button"
                disabled={locked || (moving !== undefined && underWay(moving))}
                onClick={() => setSheet(kind)}
              >
                {kind === 'move' ? 'Move to…' : 'Copy to…'}
              </button>
            ))}
          </div>
        )}
        {sheet && (
          <Suspense fallback={null}>
            <MoveSheet agent={agent} kind={sheet} onClose={() => setSheet(null)} />
          </Suspense>
        )}

        {fleet && (
          <form
            class="control-form"
            onSubmit={(e) => {
              e.preventDefault();
              void run('rename', () => api.rename(agent, { name })).then((renamed) => {
                if (!renamed) return;
                dropAgent(agent);
                location.hash = `#/a/${encodeURIComponent(renamed.name)}`;
              });
            }}
          >
            <label for="rename">Name</label>
            <div class="control-row">
              <input id="rename" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
              <button type="submit" disabled={locked || name === named || !name}>
                Rename
              </button>
            </div>
          </form>
        )}

        <AgentUsage agent={agent} />

        <AppearanceForm agent={a} />

        {fleet && templates.length > 0 && (
          <form
            class="control-form"
            onSubmit={(e) => {
              e.preventDefault();
              void run('template', () => api.setTemplate(agent, { template }));
            }}
          >
            <label for="template">Template (the agent restarts)</label>
            <div class="control-row">
              <select
                id="template"
                value={template}
                onChange={(e) => setTemplate((e.target as HTMLSelectElement).value)}
              >
                {templates.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))}
              </select>
              <button type="submit" disabled={locked || template === (a.template ?? '')}>
                Apply
              </button>
            </div>
          </form>
        )}

        {fleet && environments.length > 0 && (
          <form
            class="control-form"
            onSubmit={(e) => {
              e.preventDefault();
              void run('environments', () => api.setEnvironments(agent, { environments: chosen }));
            }}
          >
            <EnvironmentChoices environments={environments} chosen={chosen} onChange={setChosen} />
            <button type="submit" disabled={locked}>
              Apply environments
            </button>
          </form>
        )}

        {fleet && (
          <div class="danger-zone">
            {!confirmRemove ? (
              <button type="button" class="danger" disabled={locked} onClick={() => setConfirmRemove(true)}>
                Remove {agent}…
              </button>
            ) : (
              <div role="alertdialog" aria-labelledby="remove-q" class="confirm">
                <p id="remove-q">
                  Remove <strong>{agent}</strong>? Its tmux session ends; its thread stays, and so does its workspace (a
                  git worktree Leo made for it goes too when it holds no uncommitted or unpushed work).
                </p>
                <div class="control-row">
                  <button type="button" onClick={() => setConfirmRemove(false)}>
                    Keep it
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={locked}
                    onClick={() =>
                      void run('remove', () => api.remove(agent)).then((r) => {
                        if (!r) return;
                        dropAgent(agent);
                        if (r.worktree?.kept) return setKeptTree(r.worktree);
                        location.hash = '#/';
                      })
                    }
                  >
                    Remove {agent}
                  </button>
                </div>
              </div>
            )}
          </div>
        )}
      </main>
    </section>
  );
}

/** After a removal that left the agent's worktree in place: where it is, on which branch, and why it stayed. */
function KeptWorktree({ agent, tree }: { agent: string; tree: WorktreeLeft }) {
  return (
    <section class="screen controls" data-screen="agent">
      <ScreenBar title={agent} back="#/" backLabel="Back to the fleet" badge={false} />
      <main class="control-groups">
        <div role="alertdialog" aria-labelledby="kept-q" class="confirm" data-worktree-kept>
          <p id="kept-q">
            <strong>{agent}</strong> is removed. Its worktree stays at <code>{tree.path}</code>
            {tree.branch_removed ? (
              ''
            ) : (
              <>
                {' '}
                on <code>{tree.branch}</code>
              </>
            )}
            : {tree.kept}
          </p>
          <button type="button" class="primary" onClick={() => (location.hash = '#/')}>
            Back to the fleet
          </button>
        </div>
      </main>
    </section>
  );
}
