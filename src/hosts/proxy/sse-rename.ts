/**
 * A host's event stream passed on through the hub with each frame's data renamed (an agent's name to `name@host`).
 * Line by line, so what it does not rename goes on byte for byte: comments (the heartbeats), `id:` and `retry:`
 * lines, a data line that is not one JSON value. Pure: fed text in whatever chunks the network delivers.
 */
export class SseRename {
  private partial = '';
  private event = 'message';

  constructor(private readonly rename: (event: string, data: unknown) => unknown) {}

  /** The text to pass on for `chunk`: every whole line so far; a line's unfinished tail waits for the next chunk. */
  feed(chunk: string): string {
    const lines = (this.partial + chunk).split('\n');
    this.partial = lines.pop()!;
    return lines.map((line) => `${this.line(line)}\n`).join('');
  }

  /** Whatever of the stream was left without its line end when it ended. */
  end(): string {
    const rest = this.partial;
    this.partial = '';
    return rest;
  }

  private line(line: string): string {
    // A \r\n stream keeps its \r: JSON.parse reads it as whitespace, and it is put back after the renamed data.
    const cr = line.endsWith('\r') ? '\r' : '';
    const bare = cr ? line.slice(0, -1) : line;
    if (bare === '') this.event = 'message';
    else if (bare.startsWith('event:')) this.event = bare.slice(6).replace(/^ /, '');
    if (!bare.startsWith('data:')) return line;
    let data: unknown;
    try {
      data = JSON.parse(bare.slice(5));
    } catch {
      return line;
    }
    return `data: ${JSON.stringify(this.rename(this.event, data))}${cr}`;
  }
}
