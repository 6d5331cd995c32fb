// One job at a time per engine instance: a WASM worker or an inference session serves one page
// at a time, which also bounds memory. Extra pages wait in order.
export class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
