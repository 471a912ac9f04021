// Whether this process should be sent work: /readyz reads it. It answers at once from the last check of the
// database and the bus, refreshed in the background (a probe never waits on a busy database, nor adds a query of
// its own); it says no while the process starts and from the moment a stop begins, so a load balancer stops
// sending work before intake closes.

/** What /readyz answers: the status code and a small JSON body saying what is not ready. */
export interface ReadinessReport {
  status: 200 | 503;
  body: { status: "ready" | "starting" | "stopping" | "unavailable"; database?: "ok" | "down"; bus?: "ok" | "down" };
}

export interface ReadinessChecks {
  database(): Promise<boolean>;
  bus(): Promise<boolean>;
}

/** How often the database and bus are checked, and how long one check may take before it counts as down. */
export const readinessEveryMs = 2_000;
export const readinessTimeoutMs = 2_000;

export class Readiness {
  private phase: "starting" | "running" | "stopping" = "starting";
  private last = { database: false, bus: false };
  private timer: ReturnType<typeof setTimeout> | undefined;
  private checks: ReadinessChecks | undefined;

  /** The process has started: checks once (ready only after that check), then every `everyMs` until stopping. */
  async running(checks: ReadinessChecks, everyMs = readinessEveryMs): Promise<void> {
    if (this.phase !== "starting") return;
    this.checks = checks;
    await this.refresh();
    if (this.phase !== "starting") return;
    this.phase = "running";
    const loop = () => {
      this.timer = setTimeout(async () => {
        await this.refresh();
        if (this.phase === "running") loop();
      }, everyMs);
      this.timer.unref?.();
    };
    loop();
  }

  /** A stop has begun: not ready from now on. */
  stopping(): void {
    this.phase = "stopping";
    clearTimeout(this.timer);
  }

  report(): ReadinessReport {
    if (this.phase !== "running") return { status: 503, body: { status: this.phase } };
    const { database, bus } = this.last;
    const parts = { database: database ? "ok" : "down", bus: bus ? "ok" : "down" } as const;
    return database && bus ? { status: 200, body: { status: "ready", ...parts } } : { status: 503, body: { status: "unavailable", ...parts } };
  }

  private async refresh(): Promise<void> {
    const checks = this.checks;
    if (!checks) return;
    const [database, bus] = await Promise.all([answers(checks.database), answers(checks.bus)]);
    this.last = { database, bus };
  }
}

/** True when the check answers true within the timeout; a throw or a silence is down. */
async function answers(check: () => Promise<boolean>): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silence = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), readinessTimeoutMs);
  });
  try {
    return await Promise.race([check().catch(() => false), silence]);
  } finally {
    clearTimeout(timer);
  }
}
