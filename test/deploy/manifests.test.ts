// The Kubernetes manifests: every overlay (and the migration Job) builds with kubectl's kustomize, every object it
// makes passes the Kubernetes API's schema (kubernetes-models 5.1.0: Kubernetes 1.36) with no field the API does
// not know, and the deployment keeps what docs/operations.md promises: probes, resources, configuration and secrets,
// replicas, autoscalers and disruption budgets, NATS with its configuration file, and who may connect to what.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { admits, build, findBuilder, root, schemaErrors, servedApis, unknownFieldErrors, type K8sObject, type Pod } from "./kubernetes.ts";

const builds = { small: "deploy/k8s/overlays/small", scaled: "deploy/k8s/overlays/scaled", migrate: "deploy/k8s/migrate" } as const;
type BuildName = keyof typeof builds;

const services = ["gateway", "items", "notes", "sources", "delivery", "exports"] as const;
/** The Secrets a Trove pod may read: made by the operator (trove-secrets, trove-nats-auth) or by CloudNativePG. */
const knownSecrets = new Set(["trove-secrets", "trove-nats-auth", "trove-postgres-app"]);

const built = new Map<BuildName, K8sObject[]>();
function objects(name: BuildName): K8sObject[] {
  let out = built.get(name);
  if (!out) built.set(name, (out = build(builds[name])));
  return out;
}
const ofKind = (name: BuildName, kind: string) => objects(name).filter((o) => o.kind === kind);
const named = (name: BuildName, kind: string, metaName: string) => {
  const o = ofKind(name, kind).find((x) => x.metadata.name === metaName);
  if (!o) throw new Error(`${name}: no ${kind} ${metaName}`);
  return o;
};
const container = (workload: K8sObject) => workload.spec.template.spec.containers[0];
/** The replicas a Deployment runs: its autoscaler's minimum when one targets it, else its count (1 when unset). */
function replicas(name: BuildName, d: K8sObject): number {
  const hpa = ofKind(name, "HorizontalPodAutoscaler").find((h) => h.spec.scaleTargetRef.kind === "Deployment" && h.spec.scaleTargetRef.name === d.metadata.name);
  return hpa ? hpa.spec.minReplicas : (d.spec.replicas ?? 1);
}

/** Room for the kubectl runs and the type check on a loaded machine (a budget, not a duration asserted). */
const budgetMs = 180_000;

const builder = findBuilder();

if (!builder.ok) {
  describe.skip(`Kubernetes manifests (skipped: ${builder.reason})`, () => test("every overlay builds and every object validates", () => {}));
} else {
  describe("Kubernetes manifests (deploy/k8s)", () => {
    test("every overlay and the migration Job build", () => {
      for (const name of Object.keys(builds) as BuildName[]) expect(objects(name).length).toBeGreaterThan(0);
      for (const name of ["small", "scaled"] as const) {
        expect(ofKind(name, "Deployment").map((d) => d.metadata.name).sort()).toEqual(services.map((s) => `trove-${s}`).sort());
        expect(ofKind(name, "StatefulSet").map((s) => s.metadata.name)).toEqual(["trove-nats"]);
        expect(ofKind(name, "Cluster").map((c) => c.metadata.name)).toEqual(["trove-postgres"]);
      }
    }, budgetMs);

    test("every object passes the Kubernetes 1.36 schema of its kind, and its API is one that version serves", async () => {
      const problems: string[] = [];
      for (const name of Object.keys(builds) as BuildName[]) {
        for (const o of objects(name)) {
          if (o.apiVersion === "postgresql.cnpg.io/v1") continue; // no schema of the CRD ships here: see the next test
          const label = `${name}: ${o.kind} ${o.metadata.name}`;
          if (!servedApis.has(o.apiVersion)) problems.push(`${label}: ${o.apiVersion} is not an API Kubernetes 1.36 serves`);
          else for (const e of await schemaErrors(o)) problems.push(`${label}: ${e}`);
        }
      }
      expect(problems).toEqual([]);
    });

    test("no object has a field the Kubernetes API does not know", () => {
      const all = (Object.keys(builds) as BuildName[]).flatMap((name) =>
        objects(name)
          .filter((o) => servedApis.has(o.apiVersion))
          .map((object) => ({ label: `${name}: ${object.kind} ${object.metadata.name}`, object })),
      );
      expect(unknownFieldErrors(all)).toEqual([]);
    }, budgetMs);

    // CloudNativePG ships no JSON schema package here: the Cluster is checked for what Trove relies on, by hand.
    test("the CloudNativePG Cluster: a pinned image, storage, the trove database with pgvector and pg_trgm created at bootstrap", () => {
      for (const name of ["small", "scaled"] as const) {
        const c = named(name, "Cluster", "trove-postgres");
        expect(c.apiVersion).toBe("postgresql.cnpg.io/v1");
        expect(Number.isInteger(c.spec.instances) && c.spec.instances >= 1).toBe(true);
        expect(c.spec.imageName).toMatch(/^[\w./-]+:\d+(\.\d+)?[\w.-]*$/);
        expect(c.spec.storage.size).toMatch(/^\d+(Mi|Gi|Ti)$/);
        expect(c.spec.bootstrap.initdb).toMatchObject({ database: "trove", owner: "trove" });
        const sql = (c.spec.bootstrap.initdb.postInitApplicationSQL as string[]).join("\n").toLowerCase();
        expect(sql).toContain("create extension if not exists vector");
        expect(sql).toContain("create extension if not exists pg_trgm");
      }
      expect(named("scaled", "Cluster", "trove-postgres").spec.instances).toBeGreaterThan(1);
    });

    test("every Deployment: requests and limits, probes on the admin port, config and secrets, its own NATS user", () => {
      for (const name of ["small", "scaled"] as const) {
        const config = ofKind(name, "ConfigMap").find((c) => c.metadata.name.startsWith("trove-config"));
        expect(config?.data.TROVE_ADMIN_PORT).toBe("9464");
        // Probes come from the node: the admin server listens on every interface of the pod.
        expect(config?.data.TROVE_ADMIN_HOST).toBe("0.0.0.0");
        for (const d of ofKind(name, "Deployment")) {
          const service = d.metadata.name.replace(/^trove-/, "");
          const c = container(d);
          expect(c.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
          expect(c.resources.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
          expect(c.ports).toContainEqual({ containerPort: 9464, name: "admin" });
          expect(c.livenessProbe.httpGet).toEqual({ path: "/healthz", port: "admin" });
          expect(c.startupProbe.httpGet).toEqual({ path: "/healthz", port: "admin" });
          expect(c.readinessProbe.httpGet).toEqual({ path: "/readyz", port: "admin" });
          // The generated ConfigMap's name (with its hash) is the one the pods read.
          expect(c.envFrom).toEqual([{ configMapRef: { name: config!.metadata.name } }, { secretRef: { name: "trove-secrets" } }]);
          const env = Object.fromEntries((c.env as { name: string; value?: string; valueFrom?: unknown }[]).map((e) => [e.name, e]));
          expect(env.NATS_USER?.value).toBe(service);
          expect(env.NATS_PASSWORD?.valueFrom).toEqual({ secretKeyRef: { name: "trove-nats-auth", key: `TROVE_NATS_${service.toUpperCase()}_PASSWORD` } });
          expect(env.DATABASE_URL?.valueFrom).toEqual({ secretKeyRef: { name: "trove-postgres-app", key: "uri" } });
          expect(c.command).toEqual(["bun", "run", `services/${service}/main.ts`]);
        }
      }
    });

    test("every Trove pod has 90 s to stop, runs as a user other than root, and is scraped by Prometheus on the admin port", () => {
      for (const d of ofKind("scaled", "Deployment")) {
        const pod = d.spec.template;
        expect(pod.spec.terminationGracePeriodSeconds).toBe(90);
        expect(pod.spec.securityContext.runAsNonRoot).toBe(true);
        expect(pod.metadata.annotations).toEqual({ "prometheus.io/scrape": "true", "prometheus.io/port": "9464", "prometheus.io/path": "/metrics" });
      }
    });

    test("small runs one replica of every service, and scaled several", () => {
      for (const d of ofKind("small", "Deployment")) expect(replicas("small", d)).toBe(1);
      for (const d of ofKind("scaled", "Deployment")) expect(replicas("scaled", d)).toBeGreaterThan(1);
    });

    test("scaled: autoscalers own the gateway's and the items service's counts; a disruption budget covers every Deployment of several replicas", () => {
      const hpas = ofKind("scaled", "HorizontalPodAutoscaler");
      expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(["trove-gateway", "trove-items"]);
      for (const h of hpas) {
        expect(h.apiVersion).toBe("autoscaling/v2");
        // A count in the Deployment would reset the autoscaler's at every apply.
        expect(named("scaled", "Deployment", h.spec.scaleTargetRef.name).spec.replicas).toBeUndefined();
        expect(h.spec.maxReplicas).toBeGreaterThan(h.spec.minReplicas);
      }
      const pdbs = ofKind("scaled", "PodDisruptionBudget");
      for (const d of ofKind("scaled", "Deployment").filter((x) => replicas("scaled", x) > 1)) {
        const labels = d.spec.template.metadata.labels;
        const covering = pdbs.filter((p) => Object.entries(p.spec.selector.matchLabels).every(([k, v]) => labels[k] === v));
        expect(covering.map((p) => p.metadata.name)).toEqual([d.metadata.name]);
        expect(covering[0]!.spec.maxUnavailable ?? 0).toBeLessThan(replicas("scaled", d));
      }
      expect(ofKind("small", "HorizontalPodAutoscaler")).toEqual([]);
    });

    test("NATS: JetStream on a volume, deploy/nats/nats.conf mounted from the generated ConfigMap, passwords from trove-nats-auth", () => {
      const conf = readFileSync(join(root, "deploy/nats/nats.conf"), "utf8");
      for (const name of ["small", "scaled"] as const) {
        const nats = named(name, "StatefulSet", "trove-nats");
        const c = container(nats);
        expect(c.image).toMatch(/^nats:2\.10\.\d+-alpine$/);
        expect(c.args.slice(0, 2)).toEqual(["--config", "/etc/nats/nats.conf"]);
        expect(c.args).toContain("-js");
        const volume = nats.spec.template.spec.volumes.find((v: { name: string }) => v.name === "config");
        const generated = ofKind(name, "ConfigMap").find((m) => m.metadata.name === volume.configMap.name);
        expect(generated?.data["nats.conf"]).toBe(conf);
        expect(c.volumeMounts).toContainEqual({ name: "config", mountPath: "/etc/nats", readOnly: true });
        // The store is on the volume: where the file puts it, or where -sd does when the file names none (nats-server
        // refuses both at once).
        const dataMount = c.volumeMounts.find((m: { name: string }) => m.name === "data");
        const fileStore = /store_dir\s*[:=]?\s*"?([^\s"}]+)/.exec(conf.replace(/#.*$/gm, ""))?.[1];
        if (fileStore) {
          expect(c.args).not.toContain("-sd");
          expect(dataMount.mountPath).toBe(fileStore);
        } else expect(c.args.join(" ")).toContain(`-sd ${dataMount.mountPath}`);
        expect(nats.spec.volumeClaimTemplates.map((t: K8sObject) => t.metadata.name)).toEqual(["data"]);
        expect(c.envFrom).toEqual([{ secretRef: { name: "trove-nats-auth" } }]);
        // The services reach it by the name in NATS_URL.
        const url = ofKind(name, "ConfigMap").find((m) => m.metadata.name.startsWith("trove-config"))!.data.NATS_URL;
        const service = named(name, "Service", new URL(url).hostname);
        expect(service.spec.ports.map((p: { port: number }) => p.port)).toContain(Number(new URL(url).port));
      }
      // The passwords the configuration names are the Secret's keys, and every service's is among them.
      const variables = conf.match(/\$TROVE_NATS_[A-Z]+_PASSWORD/g) ?? [];
      for (const variable of variables) expect(variable).toMatch(/^\$TROVE_NATS_(GATEWAY|ITEMS|NOTES|SOURCES|DELIVERY|EXPORTS|TROVE)_PASSWORD$/);
      if (variables.length > 0) for (const s of services) expect(variables).toContain(`$TROVE_NATS_${s.toUpperCase()}_PASSWORD`);
    });

    test("no Secret is committed; pods read only the documented Secrets; every image is pinned to a version", () => {
      for (const name of Object.keys(builds) as BuildName[]) {
        expect(ofKind(name, "Secret")).toEqual([]);
        for (const o of objects(name).filter((x) => x.spec?.template?.spec)) {
          for (const c of o.spec.template.spec.containers) {
            expect(c.image).toMatch(/:[\w.-]+$/);
            expect(c.image).not.toMatch(/:latest$/);
            const refs = [
              ...(c.envFrom ?? []).map((e: { secretRef?: { name: string } }) => e.secretRef?.name),
              ...(c.env ?? []).map((e: { valueFrom?: { secretKeyRef?: { name: string } } }) => e.valueFrom?.secretKeyRef?.name),
            ].filter(Boolean);
            for (const r of refs) expect(knownSecrets.has(r)).toBe(true);
          }
        }
      }
    });

    test("every Service selects pods of a workload of the same build, on a port they name; the Ingress names the gateway's Service", () => {
      for (const name of ["small", "scaled"] as const) {
        const pods = objects(name).filter((o) => o.spec?.template?.metadata?.labels);
        for (const s of ofKind(name, "Service")) {
          const targets = pods.filter((p) => Object.entries(s.spec.selector).every(([k, v]) => p.spec.template.metadata.labels[k] === v));
          expect(targets.length).toBeGreaterThan(0);
          const portNames = targets.flatMap((p) => container(p).ports.map((x: { name: string }) => x.name));
          for (const port of s.spec.ports) expect(portNames).toContain(port.targetPort);
        }
        const ingress = named(name, "Ingress", "trove");
        const backend = ingress.spec.rules[0].http.paths[0].backend.service;
        expect(backend.name).toBe("trove-gateway");
        expect(named(name, "Service", "trove-gateway").spec.ports.map((p: { name: string }) => p.name)).toContain(backend.port.name);
      }
    });

    describe("NetworkPolicies", () => {
      const policies = () => ofKind("scaled", "NetworkPolicy");
      const ns = "trove";
      const nsLabels = (n: string) => ({ "kubernetes.io/metadata.name": n });
      const podOf = (d: K8sObject): Pod => ({
        namespace: ns,
        namespaceLabels: nsLabels(ns),
        labels: d.spec.template.metadata.labels,
        ports: Object.fromEntries(container(d).ports.map((p: { name: string; containerPort: number }) => [p.name, p.containerPort])),
      });
      const trove = (service: string) => podOf(named("scaled", "Deployment", `trove-${service}`));
      const nats = () => podOf(named("scaled", "StatefulSet", "trove-nats"));
      const postgres: Pod = { namespace: ns, namespaceLabels: nsLabels(ns), labels: { "cnpg.io/cluster": "trove-postgres" } };
      const strangerHere: Pod = { namespace: ns, namespaceLabels: nsLabels(ns), labels: { app: "something-else" } };
      const ingressController: Pod = { namespace: "ingress-nginx", namespaceLabels: nsLabels("ingress-nginx"), labels: { "app.kubernetes.io/name": "ingress-nginx" } };
      const prometheus: Pod = { namespace: "monitoring", namespaceLabels: nsLabels("monitoring"), labels: { "app.kubernetes.io/name": "prometheus" } };
      const migrateJob = (): Pod => ({ namespace: ns, namespaceLabels: nsLabels(ns), labels: objects("migrate")[0]!.spec.template.metadata.labels });

      test("every policy is namespaced with Trove (the overlay's namespace) and the base denies ingress by default", () => {
        expect(policies().every((p) => p.metadata.namespace === ns)).toBe(true);
        const deny = policies().find((p) => Object.keys(p.spec.podSelector).length === 0);
        expect(deny?.spec.ingress).toBeUndefined();
        expect(admits(policies(), strangerHere, strangerHere, 8080)).toBe(false);
      });

      test("NATS takes clients only from Trove's processes", () => {
        for (const s of services) expect(admits(policies(), nats(), trove(s), 4222)).toBe(true);
        expect(admits(policies(), nats(), strangerHere, 4222)).toBe(false);
        expect(admits(policies(), nats(), ingressController, 4222)).toBe(false);
        expect(admits(policies(), nats(), postgres, 4222)).toBe(false);
      });

      test("PostgreSQL takes SQL only from Trove's processes (the migration Job included) and its own instances", () => {
        for (const s of services) expect(admits(policies(), postgres, trove(s), 5432)).toBe(true);
        expect(admits(policies(), postgres, migrateJob(), 5432)).toBe(true);
        expect(admits(policies(), postgres, postgres, 5432)).toBe(true);
        expect(admits(policies(), postgres, strangerHere, 5432)).toBe(false);
        expect(admits(policies(), postgres, nats(), 5432)).toBe(false);
        expect(admits(policies(), postgres, ingressController, 5432)).toBe(false);
      });

      test("only the gateway is reachable from the ingress controller; the services only by Prometheus on the admin port", () => {
        expect(admits(policies(), trove("gateway"), ingressController, 8080)).toBe(true);
        expect(admits(policies(), trove("gateway"), ingressController, 9464)).toBe(false);
        expect(admits(policies(), trove("gateway"), strangerHere, 8080)).toBe(false);
        for (const s of services) {
          expect(admits(policies(), trove(s), prometheus, 9464)).toBe(true);
          if (s === "gateway") continue;
          expect(admits(policies(), trove(s), ingressController, 9464)).toBe(false);
          expect(admits(policies(), trove(s), trove("gateway"), 9464)).toBe(false);
          expect(admits(policies(), trove(s), prometheus, 8080)).toBe(false);
        }
        // Mail for email inboxes comes in through the ingress controller's namespace, to the sources pods only.
        expect(admits(policies(), trove("sources"), ingressController, 2525)).toBe(true);
        expect(admits(policies(), trove("items"), ingressController, 2525)).toBe(false);
      });
    });
  });
}
