/** One server-sent event: its name (`message` when the frame names none) and its data lines joined. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * A streaming parser for text/event-stream (the WHATWG framing: `event:`/`data:` fields, blank-line terminated,
 * `:` comments ignored), fed decoded text in whatever chunks the network delivers. Leo Web reads /api/v1/events with
 * it (EventSource cannot send an Authorization header, and the token must never go into a URL), and the chat engine
 * reads an LLM provider's stream with it.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  feed(chunk: string): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const width = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      // A lone \r at the end of a chunk may be the first half of \r\n: wait for the next chunk to tell.
      if (width === 1 && this.buffer[nl] === '\r' && nl === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(nl + width);
      if (line === '') {
        out.push(...this.end());
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
    }
    return out;
  }

  /**
   * Dispatches the event whose lines are complete, as a blank line would. WHATWG discards it when the stream closes;
   * the chat engine takes it, since a provider may close its stream without the last blank line.
   */
  end(): SseEvent[] {
    const out = this.data.length ? [{ event: this.event || 'message', data: this.data.join('\n') }] : [];
    this.event = '';
    this.data = [];
    return out;
  }
}
