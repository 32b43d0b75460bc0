// The scripted conversation that proves a moved Claude agent resumed with its history: the model picks a secret word
// on the first turn, and on the second says it again only if that request carries the earlier turn.
import { isAgentTurn, lastUserMessage, mentions, type AnthropicServer, type ReplyScript } from './anthropic-server.js';

export function secretWordConversation(secret: string) {
  const first = 'LEO-MOVE-1 pick a secret word';
  const second = 'LEO-MOVE-2 which word did you pick?';
  const picked = `The secret word is ${secret}.`;
  const remembered = `It was ${secret}.`;
  const script: ReplyScript = (req, { sideRequest }) => {
    if (sideRequest || !isAgentTurn(req.body)) return undefined;
    const last = lastUserMessage(req.body);
    if (mentions(last, first)) return { text: picked };
    if (mentions(last, second))
      return { text: JSON.stringify(req.body.messages).includes(secret) ? remembered : 'I never picked a word.' };
    return undefined;
  };
  /** The model request of the second turn, whose messages must hold the first prompt. */
  const secondTurn = (api: AnthropicServer) =>
    api
      .messageRequests()
      .filter((r) => isAgentTurn(r.body) && mentions(lastUserMessage(r.body), second))
      .at(-1)!;
  return { first, second, picked, remembered, script, secondTurn };
}
