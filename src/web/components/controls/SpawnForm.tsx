import { useEffect, useState } from 'preact/hooks';
import type { TemplateSummary } from '../../../wire/templates.js';
import { api } from '../../stores/auth.js';
import { threadHref } from '../../stores/route.js';
import { ScreenBar } from '../ScreenBar.js';
import { useAction } from './useAction.js';
import { EnvironmentChoices } from './EnvironmentChoices.js';
import { NoFleetNote } from './NoFleetNote.js';
import { mayRunFleet } from '../../stores/caller.js';
import { downHosts, hosts } from '../../stores/hosts.js';
import { parseAddress } from '../../../wire/agent-address.js';
import './controls.css';

/**
 * What the ticks mean, in words: they start as the template's list and replace it. The daemon reads an empty list as
 * "no list of its own", so with none ticked the agent takes the template's: said rather than shown unticked.
 */
function environmentsHint(template: string, own: readonly string[], chosen: readonly string[]): string {
  if (chosen.length === 0 && own.length > 0)
    return `None ticked: the agent takes ${template}'s list (${own.join(', ')}) — an agent cannot start with none when its template names some.`;
  const base = own.length ? `${template} gives its agents ${own.join(', ')}` : `${template} gives its agents none`;
  return `Ticked at first: ${base}. The agent takes exactly what is ticked: your choice replaces the template's list, it does not add to it.`;
}

/**
 * A new agent from one of leo.yaml's templates (`#/new`): name, repository and branch, environments, and a first
 * message typed once it is ready. Opens the new agent's thread. `name` fills the name in (a thread with no agent offers
 * to spawn one under its name; `name@host` picks the machine too). On a hub, the machine is chosen: a host's agents
 * start from that host's own templates and environments, so the lists follow the choice.
 */
export function SpawnForm({ name: named = '' }: { name?: string | undefined }) {
  const { busy, error, run } = useAction();
  const [templates, setTemplates] = useState<TemplateSummary[] | null>(null);
  const [environments, setEnvironments] = useState<string[]>([]);
  const [template, setTemplate] = useState('');
  const address = parseAddress(named);
  /** '' is this machine. */
  const [host, setHost] = useState(address?.host ?? '');
  const [name, setName] = useState(address?.name ?? named);
  const [repo, setRepo] = useState('');
  const [branch, setBranch] = useState('');
  // null: as the template says; a tick or an untick overrides it for this agent.
  const [worktree, setWorktree] = useState<boolean | null>(null);
  const [chosen, setChosen] = useState<string[]>([]);
  const [prompt, setPrompt] = useState('');
  const takes = (list: readonly TemplateSummary[] | null, name: string) =>
    list?.find((t) => t.name === name)?.spawn_environments ?? [];
  // The form starts from what the template would give the agent, so a tick is a change to that, not a fresh list.
  const pickTemplate = (list: readonly TemplateSummary[] | null, name: string) => {
    setTemplate(name);
    setChosen([...takes(list, name)]);
  };
  const own = takes(templates, template);
  const unchanged = chosen.length === own.length && own.every((e) => chosen.includes(e));
  useEffect(() => {
    setTemplates(null);
    void run('load', async () => {
      const [t, e] = await Promise.all([api.templates(host || null), api.environments(host || null)]);
      setTemplates(t);
      setEnvironments(e.map((x) => x.name));
      pickTemplate(t, t[0]?.name ?? '');
      return null;
    });
  }, [host]);
  const ownTree = worktree ?? templates?.find((t) => t.name === template)?.worktree === true;
  const submit = (e: Event) => {
    e.preventDefault();
    void run('spawn', () =>
      api.spawn({
        template,
        ...(host ? { host } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(repo.trim() ? { repo: repo.trim() } : {}),
        ...(branch.trim() && !ownTree ? { branch: branch.trim() } : {}),
        ...(worktree === null ? {} : { worktree }),
        // Unchanged, the agent follows its template's list; otherwise the spawn's list replaces it (none included).
        ...(unchanged ? {} : { environments: chosen }),
        ...(prompt.trim() ? { prompt: prompt.trim() } : {}),
      }),
    ).then((agent) => {
      if (agent) location.hash = threadHref(agent.name);
    });
  };
  if (!mayRunFleet.value)
    return (
      <section class="screen controls" data-screen="new">
        <ScreenBar title="New agent" back="#/" backLabel="Back to the fleet" />
        <main>
          <NoFleetNote what="Starting an agent" />
        </main>
      </section>
    );
  return (
    <section class="screen controls" data-screen="new">
      <ScreenBar title="New agent" back="#/" backLabel="Back to the fleet" />
      <main>
        {templates?.length === 0 && (
          <p class="empty">{host ? `${host}'s leo.yaml` : 'leo.yaml'} defines no templates yet.</p>
        )}
        <form class="control-groups" onSubmit={submit}>
          {hosts.value !== null && hosts.value.length > 0 && (
            <>
              <label for="spawn-host">Machine</label>
              <select id="spawn-host" value={host} onChange={(e) => setHost((e.target as HTMLSelectElement).value)}>
                <option value="">This machine</option>
                {hosts.value.map((h) => {
                  const down = downHosts.value.get(h.name);
                  return (
                    <option key={h.name} value={h.name} disabled={!!down} title={down}>
                      {h.name}
                      {down ? ` (${h.status})` : ''}
                    </option>
                  );
                })}
              </select>
            </>
          )}
          <label for="spawn-template">Template</label>
          <select
            id="spawn-template"
            required
            value={template}
            onChange={(e) => pickTemplate(templates, (e.target as HTMLSelectElement).value)}
          >
            {(templates ?? []).map((t) => (
              <option key={t.name} value={t.name}>
                {t.name} — {t.harness}
                {t.model ? ` · ${t.model}` : ''}
              </option>
            ))}
          </select>
          <label for="spawn-name">Name (optional)</label>
          <input
            id="spawn-name"
            value={name}
            placeholder="from the repository or the template"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <label for="spawn-repo">Repository (optional)</label>
          <input
            id="spawn-repo"
            value={repo}
            placeholder="a path or a git URL"
            onInput={(e) => setRepo((e.target as HTMLInputElement).value)}
          />
          <label class="choice">
            <input
              type="checkbox"
              data-spawn-worktree
              checked={ownTree}
              onChange={(e) => setWorktree((e.target as HTMLInputElement).checked)}
            />
            Its own git worktree, on the branch leo/{name.trim() || 'its name'}
          </label>
          <label for="spawn-branch">Branch (optional)</label>
          <input
            id="spawn-branch"
            value={ownTree ? '' : branch}
            disabled={ownTree}
            placeholder={ownTree ? 'leo/<name>, made from the current branch' : ''}
            onInput={(e) => setBranch((e.target as HTMLInputElement).value)}
          />
          {environments.length > 0 && (
            <EnvironmentChoices
              environments={environments}
              chosen={chosen}
              onChange={setChosen}
              hint={environmentsHint(template, own, chosen)}
            />
          )}
          <label for="spawn-prompt">First message (optional)</label>
          <textarea
            id="spawn-prompt"
            rows={3}
            value={prompt}
            onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)}
          />
          {error && (
            <p class="form-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" class="primary" disabled={!!busy || !template}>
            {busy === 'spawn' ? 'Starting…' : 'Start agent'}
          </button>
        </form>
      </main>
    </section>
  );
}
