/** The environments an agent may take, as checkboxes: the spawn form's and an agent's controls alike. */
export function EnvironmentChoices({
  environments,
  chosen,
  onChange,
}: {
  environments: readonly string[];
  chosen: readonly string[];
  onChange(next: string[]): void;
}) {
  return (
    <fieldset>
      <legend>Environments</legend>
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
