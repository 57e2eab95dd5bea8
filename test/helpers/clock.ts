/** A clock tests move by hand, so windows, expiries and TTLs are tested without sleeping. */
export class TestClock {
  private ms: number;

  constructor(start = Date.now()) {
    this.ms = start;
  }

  readonly now = (): Date => new Date(this.ms);
  readonly nowMs = (): number => this.ms;

  advance(ms: number): void {
    this.ms += ms;
  }
}
