// The scripted conversation that proves a moved agent resumed with its history: the model picks a secret word on the
// first turn, and on the second says it again only if that request carries the earlier turn. Any wire protocol: each
// model server's script hands `reply` the turn's last prompt and the request as text.
export function secretWordConversation(secret: string) {
  const first = 'LEO-MOVE-1 pick a secret word';
  const second = 'LEO-MOVE-2 which word did you pick?';
  const picked = `The secret word is ${secret}.`;
  const remembered = `It was ${secret}.`;
  /** The answer to an agent's turn whose last prompt is `prompt`, or undefined for the server's default. */
  const reply = (prompt: string, request: string): string | undefined => {
    if (prompt.includes(first)) return picked;
    if (prompt.includes(second)) return request.includes(secret) ? remembered : 'I never picked a word.';
    return undefined;
  };
  return { first, second, picked, remembered, reply };
}
