// Runs async steps one at a time, in arrival order.
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn, fn);
    // Keep the chain alive whatever the outcome of this step.
    this.tail = next.catch(() => undefined);
    return next;
  }
}
