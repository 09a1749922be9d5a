/**
 * A registry's changes, announced once per turn of the event loop: defining twenty tools at
 * start-up sends one `notifications/tools/list_changed`, not twenty.
 */
export class ChangeSignal {
  private pending = false;
  private readonly listeners: (() => void)[] = [];

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  changed(): void {
    if (this.pending || this.listeners.length === 0) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      for (const listener of this.listeners) listener();
    });
  }
}
