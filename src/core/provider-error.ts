/**
 * What of an LLM provider's own error text may reach a turn's failure (the caller, the session history, logs). Pure.
 * Providers and proxies echo what they were sent: a key in "Incorrect API key provided: sk-…", an Authorization
 * header in a debug dump. So the text is cut to PROVIDER_TEXT_CHARS, the key the turn was sent with is blanked
 * wherever it appears, and so is anything shaped like a credential: a known key prefix (sk-, sk-ant-, AIza, AKIA,
 * a Leo token), a Bearer value, or a long run of letters and digits that mixes both (a random secret looks like that;
 * words and numbers do not). A long request id is blanked with them: the status and the words around it stay.
 */
export const PROVIDER_TEXT_CHARS = 300;

const CREDENTIAL_SHAPES = [
  /\bBearer\s+\S+/gi,
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{12,}/g,
  /\bleo_[a-z]+_[A-Za-z0-9_-]{8,}/g,
];
const LONG_RUN = /[A-Za-z0-9_+/=-]{24,}/g;
const REDACTED = '[redacted]';

export function redactProviderText(text: string, sentKeys: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const key of sentKeys) if (key && key.length >= 8) out = out.split(key).join(REDACTED);
  for (const shape of CREDENTIAL_SHAPES) out = out.replace(shape, REDACTED);
  out = out.replace(LONG_RUN, (run) => (/[A-Za-z]/.test(run) && /[0-9]/.test(run) ? REDACTED : run));
  const chars = [...out];
  return chars.length <= PROVIDER_TEXT_CHARS ? out : `${chars.slice(0, PROVIDER_TEXT_CHARS).join('')}…`;
}
