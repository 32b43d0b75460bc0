/** The environments an agent may take, as checkboxes: the spawn form's and an agent's controls alike. */
export function EnvironmentChoices({
  environments,
  chosen,
  onChange,
  hint,
}: {
  environments: readonly string[];
  chosen: readonly string[];
  onChange(next: string[]): void;
  /** What ticking means here, said under the legend. */
  hint?: string;
}) {
  return (
    <fieldset>
      <legend>Environments</legend>
      {hint && <p class="hint env-hint">{hint}</p>}
      {environments.map((env) => (
        <label key={env} class="choice">
          <input
            type="checkbox"
            checked={chosen.includes(env)}
            onChange={(e) =>
              onChange((e.target as HTMLInputElement).checked ? [...chosen, env] : chosen.filter((x) => x !== env))
            }
          />{' '}
          {env}
        </label>
      ))}
    </fieldset>
  );
}
