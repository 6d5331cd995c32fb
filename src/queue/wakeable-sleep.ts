// The idle wait of a polling loop, which a NOTIFY can cut short: loops sleep on it with backoff
// when there is nothing to claim, and wake() ends every sleep at once.
export class WakeableSleep {
  private readonly sleepers = new Set<() => void>();

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.sleepers.add(done);
    });
  }

  wake(): void {
    for (const done of [...this.sleepers]) done();
  }
}
