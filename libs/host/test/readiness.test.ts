// What /readyz answers, from the process's phase and the last check of its database and bus. The checks here are
// plain functions standing for a database and a bus that answer, fail, or never answer.
import { describe, expect, test } from "bun:test";
import { eventually } from "@trove/testing";
import { Readiness, readinessTimeoutMs } from "../readiness.ts";

const up = async () => true;
const down = async () => false;
const broken = async (): Promise<boolean> => {
  throw new Error("connection refused");
};
const silent = () => new Promise<boolean>(() => {});

describe("readiness", () => {
  test("not ready while starting; ready once a first check found the database and the bus answering", async () => {
    const r = new Readiness();
    expect(r.report()).toEqual({ status: 503, body: { status: "starting" } });
    await r.running({ database: up, bus: up });
    expect(r.report()).toEqual({ status: 200, body: { status: "ready", database: "ok", bus: "ok" } });
    r.stopping();
  });

  test("a database that fails or a bus that says no: 503 naming what is down", async () => {
    const r = new Readiness();
    await r.running({ database: broken, bus: up });
    expect(r.report()).toEqual({ status: 503, body: { status: "unavailable", database: "down", bus: "ok" } });
    r.stopping();
    const b = new Readiness();
    await b.running({ database: up, bus: down });
    expect(b.report()).toEqual({ status: 503, body: { status: "unavailable", database: "ok", bus: "down" } });
    b.stopping();
  });

  test(`a check that never answers counts as down after ${readinessTimeoutMs} ms`, async () => {
    const r = new Readiness();
    await r.running({ database: silent, bus: up });
    expect(r.report()).toMatchObject({ status: 503, body: { database: "down", bus: "ok" } });
    r.stopping();
  });

  test("checks again in the background: a database that comes back makes the process ready, one that goes away not", async () => {
    let database = false;
    const r = new Readiness();
    await r.running({ database: async () => database, bus: up }, 20);
    expect(r.report().status).toBe(503);
    database = true;
    await eventually(() => r.report().status === 200);
    database = false;
    await eventually(() => r.report().status === 503);
    r.stopping();
  });

  test("from the moment a stop begins: 503 stopping, whatever the checks say", async () => {
    const r = new Readiness();
    await r.running({ database: up, bus: up }, 20);
    r.stopping();
    expect(r.report()).toEqual({ status: 503, body: { status: "stopping" } });
    // A stop during the first check is not undone by its end.
    const early = new Readiness();
    const starting = early.running({ database: up, bus: up });
    early.stopping();
    await starting;
    expect(early.report()).toEqual({ status: 503, body: { status: "stopping" } });
  });
});
