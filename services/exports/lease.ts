// A job's lease as its runner sees it: who holds it, and whether it was lost (another replica took the job, or this
// one is stopping), checked between steps so a runner never writes for a job it no longer holds.
export class LeaseLost extends Error {
  constructor() {
    super("the job's lease was lost");
    this.name = "LeaseLost";
  }
}

export class Lease {
  lost = false;

  constructor(readonly owner: string) {}

  check(): void {
    if (this.lost) throw new LeaseLost();
  }
}
