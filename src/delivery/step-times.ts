/**
 * Where one delivery's time went, step by step (waiting for the input box, the paste, its settle, the Enter's
 * verification): each step's milliseconds, summed when a step comes again. The deliverer logs them in one debug line
 * per delivery, which is what the latency benchmark reads (benchmarks/latency/); always on, a clock read per step.
 */
export class StepTimes {
  readonly ms: Record<string, number> = {};
  private last = performance.now();

  /** Ends the step running since the last lap (or since construction) and files its time under `step`. */
  lap(step: string): void {
    const now = performance.now();
    this.ms[step] = Math.round(((this.ms[step] ?? 0) + now - this.last) * 10) / 10;
    this.last = now;
  }
}
