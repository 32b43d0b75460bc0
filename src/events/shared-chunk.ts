/**
 * The bytes of a stream's queued frames, shared by every stream that queued the same ones. A fan-out leaves the same
 * frames queued on most of its streams, and a string written to a socket is encoded for that socket alone: at 1 000
 * subscribers that was 1 000 UTF-8 encodings of one chunk. The last chunk built is kept with the frames it came from;
 * a stream whose queue holds the same frames (compared one by one, so never a wrong match) writes the same Buffer.
 */
export class SharedChunks {
  private frames: readonly string[] = [];
  private chunk: Buffer | null = null;

  join(frames: readonly string[]): Buffer {
    if (this.chunk === null || !sameFrames(this.frames, frames)) {
      this.chunk = Buffer.from(frames.length === 1 ? frames[0]! : frames.join(''));
      this.frames = frames;
    }
    return this.chunk;
  }
}

function sameFrames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  // The same event's frame is one string object in every queue, so each comparison is a pointer check.
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
