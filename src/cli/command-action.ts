/** A command's action: what it answers is printed (JSON unless a string), an error is `leo: …` and exit code 1. */
export const act =
  (fn: (...args: any[]) => Promise<unknown>) =>
  async (...args: any[]) => {
    try {
      const out = await fn(...args);
      if (out !== undefined) console.log(typeof out === 'string' ? out : JSON.stringify(out, null, 2));
    } catch (err) {
      console.error(`leo: ${(err as Error).message}`);
      process.exitCode = 1;
    }
  };
