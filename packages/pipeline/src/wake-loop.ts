// A loop that runs `tick` now and then: after pollMs, or at once when kicked (a NOTIFY arrived). A kick
// during a tick runs another right after it, so nothing committed meanwhile waits for the poll.
export class WakeLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private again = false;

  constructor(
    private readonly tick: () => Promise<void>,
    private readonly pollMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        const again = this.again;
        this.again = false;
        if (!this.stopped) this.schedule(again ? 0 : this.pollMs);
      });
    }, delayMs);
  }
}
